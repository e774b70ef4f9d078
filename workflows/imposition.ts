import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/contract.ts';
import { PRESS_RUN } from './policies.ts';

const { claimBatchItems, imposeBatch, deliverBatch } = proxyActivities<Activities>(PRESS_RUN);

/**
 * A press run from its request: take the items (each marked batched on its order), impose
 * them on sheets, and lay the released batch into the label's hot folder. Every step reads
 * the batch's stream and records what it did, so a retried step records nothing twice.
 */
export async function impositionWorkflow(batchId: string) {
  const claimed = await claimBatchItems(batchId);
  if (claimed.items === 0) return { status: 'failed', sheets: 0 };
  const imposed = await imposeBatch(batchId);
  if (imposed.status === 'imposed') await deliverBatch(batchId);
  return imposed;
}

import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/contract.ts';
import { IMPOSING, PRESS_RUN } from './policies.ts';

const { claimBatchItems, deliverBatch, failImposition } = proxyActivities<Activities>(PRESS_RUN);
const { imposeBatch } = proxyActivities<Activities>(IMPOSING);

/**
 * A press run from its request: take the items (each marked batched on its order), impose
 * them on sheets, and lay the released batch into the label's hot folder. Every step reads
 * the batch's stream and records what it did, so a retried step records nothing twice. An
 * imposition that failed every attempt fails the batch (its items are let go from the log).
 */
export async function impositionWorkflow(batchId: string) {
  const claimed = await claimBatchItems(batchId);
  if (claimed.items === 0) return { status: 'failed', sheets: 0 };
  let imposed: { status: string; sheets: number };
  try {
    imposed = await imposeBatch(batchId);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    const cause = err.cause?.message ?? err.message;
    await failImposition(
      batchId,
      `the imposition failed ${IMPOSING.retry?.maximumAttempts} times, last: ${cause}`,
    );
    return { status: 'failed', sheets: 0 };
  }
  if (imposed.status === 'imposed') await deliverBatch(batchId);
  return imposed;
}

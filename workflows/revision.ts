import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/contract.ts';
import { RENDERING } from './policies.ts';

const { renderOrderItem } = proxyActivities<Activities>(RENDERING);

/**
 * A revised order item: its print file is rendered again from the design the revision
 * recorded. Each revision has its own workflow for its version; one that a newer change
 * (another revision, a barcode update) overtook records nothing, so the last one wins.
 * The proof of the new file follows from the log, as for any print file.
 */
export async function revisionWorkflow(orderStream: string, orderItemId: string, version: number) {
  return renderOrderItem(orderStream, orderItemId, version);
}

import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/contract.ts';
import { PRESS_RUN } from './policies.ts';

const { replayBatch, markSheetPrinted, releaseBatchItems } = proxyActivities<Activities>(PRESS_RUN);

/** Imposes a batch again from its events and records whether its sheets are the same. */
export async function batchReplayWorkflow(batchId: string, replayId: string) {
  return replayBatch(batchId, replayId);
}

/** A sheet's slug was scanned at the press: its items are printed. */
export async function batchSheetPrintedWorkflow(batchId: string, n: number) {
  return markSheetPrinted(batchId, n);
}

/** A batch was cancelled or failed: its items are ready for another batch. */
export async function batchReleaseWorkflow(batchId: string) {
  return releaseBatchItems(batchId);
}

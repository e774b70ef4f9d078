import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/contract.ts';

const { describeImport, applyImportChunk, completeImport } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
  },
});

/**
 * Applies a recorded bulk import chunk by chunk. A crash anywhere resumes here: chunks
 * already recorded as applied are skipped, and a chunk cut off half-way is applied
 * again, which its activity makes idempotent.
 */
export async function importWorkflow(
  importId: string,
): Promise<{ created: number; skipped: number }> {
  const { chunkCount, applied } = await describeImport(importId);
  for (let chunk = 0; chunk < chunkCount; chunk++) {
    if (!applied.includes(chunk)) await applyImportChunk(importId, chunk);
  }
  return completeImport(importId);
}

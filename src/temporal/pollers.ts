import type { Client } from '@temporalio/client';
import { temporalCall } from './calls.ts';

/** A poller not seen for this long is gone (an idle poll lasts about a minute). */
const POLLER_SEEN_MS = 90_000;

export interface Poller {
  identity: string;
  lastSeen: Date;
}

/**
 * The workers that polled a task queue for workflow tasks lately, in any process:
 * without one, recorded work waits. Throws when Temporal does not answer.
 */
export async function taskQueuePollers(
  client: Client,
  namespace: string,
  taskQueue: string,
  timeoutMs = 2000,
): Promise<Poller[]> {
  const r = await temporalCall(
    client,
    () =>
      client.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue, kind: 1 },
        taskQueueType: 1,
      }),
    timeoutMs,
  );
  const now = Date.now();
  return (r.pollers ?? [])
    .map((p) => ({
      identity: p.identity ?? '',
      lastSeen: new Date(Number(p.lastAccessTime?.seconds ?? 0) * 1000),
    }))
    .filter((p) => now - p.lastSeen.getTime() < POLLER_SEEN_MS);
}

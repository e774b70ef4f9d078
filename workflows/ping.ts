import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/contract.ts';

const { describeEventStore } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3, initialInterval: '200 ms' },
});

/**
 * The wiring check: a workflow that calls one activity, which reads the event store.
 * It proves client -> server -> worker -> activity -> event store end to end.
 */
export async function pingWorkflow(
  message: string,
): Promise<{ message: string; eventStore: string }> {
  const eventStore = await describeEventStore();
  return { message, eventStore };
}

import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/contract.ts';

const { replayOrder } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
});

/** Renders an order's print files again from its recorded events and compares them. */
export async function replayWorkflow(orderStream: string, replayId: string) {
  return replayOrder(orderStream, replayId);
}

import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/contract.ts';

const { reprintItem } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 5 },
});

/**
 * Renders a reprinted item's print file again from the order's events and checks it is the same.
 */
export async function reprintWorkflow(orderStream: string, reprintId: string, orderItemId: string) {
  return reprintItem(orderStream, reprintId, orderItemId);
}

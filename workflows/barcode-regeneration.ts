import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/contract.ts';
import { PERMANENT, RENDERING } from './policies.ts';

const { regenerateBarcode } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // explicit: exponential back-off, bounded
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 6,
    nonRetryableErrorTypes: PERMANENT,
  },
});
const { renderOrderItem } = proxyActivities<Activities>(RENDERING);

/**
 * A barcode update of an order item: the barcode is regenerated, then the item's print
 * file. Each update has its own workflow for its version; one that a newer update
 * overtook stops without recording anything, so the last update's file wins.
 */
export async function barcodeRegenerationWorkflow(
  orderStream: string,
  orderItemId: string,
  version: number,
) {
  const barcode = await regenerateBarcode(orderStream, orderItemId, version);
  if (barcode.outcome === 'superseded') return barcode;
  return renderOrderItem(orderStream, orderItemId, version);
}

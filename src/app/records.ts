import { findOrderItem } from '#projections/orders';
import { orderAggregate } from '../domain/order/decider.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { RenderError } from '../print/errors.ts';
import { loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { type Floor, floorOf } from './floor.ts';
import { variableJobOf } from './print-jobs.ts';

/**
 * One record of a variable item alone, drawn again from the order's events (its data
 * set, its design, the label's images as the sale saw them): its PDF/VT file, whose
 * record bytes are those of its part of the item's file, or a PNG of its first page.
 * 404 for another label's item, an item of one record, or a record it does not have.
 */
export async function recordOf(
  ctx: AppContext,
  at: string | Floor,
  orderItemId: string,
  record: number,
  as: 'pdf' | 'png',
): Promise<{ bytes: Uint8Array; segmentSha256: string }> {
  const { labelId, facilityId } = floorOf(at);
  const row = await findOrderItem(ctx.pool, labelId, orderItemId);
  // a facility's key finds its own items only
  if (!row || (facilityId !== undefined && row.facility_id !== facilityId))
    throw new DomainError('not_found', 'order item not found', 'order_item_not_found');
  if (!row.variable)
    throw new DomainError('not_found', 'the item is not a variable item', 'not_variable');
  if (record > row.variable.records)
    throw new DomainError(
      'not_found',
      `the item has records 1-${row.variable.records}`,
      'record_not_found',
    );
  const order = await loadState(ctx.store, orderAggregate, row.stream_id);
  const item = order.exists ? order.items.get(orderItemId) : undefined;
  if (!order.exists || !item)
    throw new DomainError('not_found', 'order item not found', 'order_item_not_found');
  const barcode = item.files.at(-1)?.barcode ?? item.barcode;
  const job = await variableJobOf(ctx, order, item, barcode).catch((err: unknown) => {
    // its data set erased: its key is gone, and no record can be drawn again
    if (err instanceof RenderError)
      throw new DomainError('not_found', err.message, 'dataset_erased');
    throw err;
  });
  return ctx.variableData.record(labelId, { job, stores: ctx.stores, record, as });
}

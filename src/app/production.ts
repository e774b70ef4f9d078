import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { itemsByCode } from '#projections/order-production';
import { findOrderItem } from '#projections/orders';
import type { OrderCommand, OrderState } from '../domain/order/decider.ts';
import { orderStream, type REPRINT_REASONS } from '../domain/order/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { deterministicId } from '../domain/shared/ids.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { workflowIds } from '../temporal/contract.ts';
import { isSheetCode, recordSheetScan } from './batches.ts';
import type { AppContext } from './context.ts';
import type { Floor } from './floor.ts';

/**
 * The shop floor: scans, shipments, holds and reprints, each an event on the order's
 * stream. What follows (webhooks, the reprint's render) is driven from the log.
 */

type Order = Extract<OrderState, { exists: true }>;

export type { Floor } from './floor.ts';

/** Runs a shop-floor command on an order of the label; another label's order is not found. */
async function onOrder(
  ctx: AppContext,
  labelId: string,
  stream: string,
  command: OrderCommand,
  metadata: EventMetadata,
  /** wait until the order views show it (a scan does not: scanners fire and move on) */
  readYourWrite = true,
): Promise<{ order: Order; appended: boolean }> {
  const r = await ctx.orderCommands.run(stream, command, { ...metadata, labelId });
  if (!r.state.exists || r.state.labelId !== labelId)
    throw new DomainError('not_found', 'order not found', 'order_not_found');
  if (readYourWrite) await ctx.readModels.seen('orders', r.appended?.position);
  if (r.appended) observeStages(ctx, r.state, r.events);
  return { order: r.state, appended: r.appended !== undefined };
}

const STAGE_OF: Record<string, string> = {
  OrderItemPrinted: 'printed',
  OrderItemPacked: 'packed',
  OrderShipped: 'shipped',
  ShipmentDelivered: 'delivered',
  ShipmentReturned: 'returned',
};

/** Time from receipt to each stage reached, for the metrics. */
function observeStages(ctx: AppContext, order: Order, events: { type: string }[]) {
  if (!ctx.observeStage) return;
  const seconds = (Date.now() - Date.parse(order.receivedAt)) / 1000;
  for (const e of events) {
    const stage = STAGE_OF[e.type];
    if (stage) ctx.observeStage(order.labelId, stage, seconds);
  }
}

const orderOf = (labelId: string, orderId: string) => orderStream(labelId, orderId);

/** Scanned order item ids of each label, and the order streams they belong to. */
const itemOfCode = new LRUCache<string, { order_item_id: string; stream_id: string }>({
  max: 100_000,
});

export interface ScanAnswer {
  orderId: string;
  orderItemId: string;
  itemId: string;
  stage: 'printed' | 'packed';
}

/**
 * A scan at a station: the item the code names (its slug barcode: the order item id, or
 * the barcode value set for it) moves to `stage`. The same scan again changes nothing
 * and answers the same; a code of another label is not found. The answer does not wait
 * for the order views: they show the scan a moment later (a scanner fires one request
 * per item and reads nothing back).
 */
export async function recordScan(
  ctx: AppContext,
  { labelId, facilityId }: Floor,
  scan: { code: string; stage: 'printed' | 'packed'; station?: string | undefined },
  metadata: EventMetadata,
): Promise<ScanAnswer | SheetScanAnswer> {
  if (isSheetCode(scan.code)) {
    if (scan.stage !== 'printed')
      throw new DomainError('invalid', 'a press sheet is scanned as printed', 'invalid_stage', {
        field: 'stage',
      });
    return recordSheetScan(ctx, { labelId, facilityId }, scan.code, scan.station, metadata);
  }
  const key = `${labelId}\u0000${scan.code}`;
  const known = itemOfCode.get(key);
  const found = known ? [known] : await itemsByCode(ctx.pool, labelId, scan.code);
  if (found.length === 0)
    throw new DomainError('not_found', 'no item of this label has this code', 'code_not_found', {
      field: 'code',
    });
  if (found.length > 1)
    throw new DomainError(
      'conflict',
      'more than one item has this barcode value: scan the order item id',
      'ambiguous_code',
      { field: 'code' },
    );
  const { order_item_id: orderItemId, stream_id } = found[0]!;
  // an order item's stream never changes; what its code is, the decider checks
  if (orderItemId === scan.code) itemOfCode.set(key, found[0]!);
  const { order } = await onOrder(
    ctx,
    labelId,
    stream_id,
    {
      type: 'RecordItemStage',
      orderItemId,
      code: scan.code,
      stage: scan.stage,
      via: 'scan',
      station: scan.station,
      facilityId,
      at: new Date(),
    },
    metadata,
    false,
  );
  return {
    orderId: order.orderId,
    orderItemId,
    itemId: order.items.get(orderItemId)!.item.itemId,
    stage: scan.stage,
  };
}

export type SheetScanAnswer = Awaited<ReturnType<typeof recordSheetScan>>;

export interface ShipmentInput {
  items?: string[] | undefined;
  carrier: string;
  trackingNumber: string;
  trackingUrl?: string | undefined;
  shippedAt?: Date | undefined;
}

/**
 * Ships items of an order (every item when none is named). With an Idempotency-Key the
 * shipment's id derives from the key: the same request again answers the same shipment,
 * the key with another shipment is 409.
 */
export async function shipItems(
  ctx: AppContext,
  { labelId, facilityId }: Floor,
  orderId: string,
  input: ShipmentInput,
  idempotencyKey: string | undefined,
  metadata: EventMetadata,
): Promise<{ shipmentId: string }> {
  const shipmentId = idempotencyKey
    ? deterministicId('shipment', labelId, orderId, idempotencyKey)
    : randomUUID();
  const now = new Date();
  if (input.shippedAt && input.shippedAt.getTime() > now.getTime() + 5 * 60_000)
    throw new DomainError('invalid', 'shippedAt is in the future', 'invalid_shipped_at', {
      field: 'shippedAt',
    });
  await onOrder(
    ctx,
    labelId,
    orderOf(labelId, orderId),
    {
      type: 'ShipItems',
      shipmentId,
      orderItemIds: input.items ? [...new Set(input.items)] : undefined,
      carrier: input.carrier,
      trackingNumber: input.trackingNumber,
      trackingUrl: input.trackingUrl,
      shippedAt: input.shippedAt ?? now,
      facilityId,
      at: now,
    },
    metadata,
  );
  return { shipmentId };
}

/** The carrier delivered a shipment, or it came back; told again, nothing changes. */
export async function shipmentArrived(
  ctx: AppContext,
  { labelId, facilityId }: Floor,
  orderId: string,
  shipmentId: string,
  outcome: { delivered: true } | { delivered: false; reason: string },
  metadata: EventMetadata,
) {
  const { order } = await onOrder(
    ctx,
    labelId,
    orderOf(labelId, orderId),
    outcome.delivered
      ? { type: 'DeliverShipment', shipmentId, facilityId, at: new Date() }
      : { type: 'ReturnShipment', shipmentId, reason: outcome.reason, facilityId, at: new Date() },
    metadata,
  );
  const s = order.shipments.get(shipmentId)!;
  const status: 'shipped' | 'delivered' | 'returned' = s.returned
    ? 'returned'
    : s.delivered
      ? 'delivered'
      : 'shipped';
  return { shipmentId, status };
}

/** Holds an order: nothing of it is batched, printed or shipped until the hold is released. */
export async function holdOrder(
  ctx: AppContext,
  { labelId, facilityId }: Floor,
  orderId: string,
  reason: string,
  idempotencyKey: string | undefined,
  metadata: EventMetadata,
): Promise<{ holdId: string }> {
  const holdId = idempotencyKey
    ? deterministicId('hold', labelId, orderId, idempotencyKey)
    : randomUUID();
  await onOrder(
    ctx,
    labelId,
    orderOf(labelId, orderId),
    { type: 'HoldOrder', holdId, reason, facilityId, at: new Date() },
    metadata,
  );
  return { holdId };
}

/** Releases a hold; released already, nothing changes. */
export async function releaseHold(
  ctx: AppContext,
  { labelId, facilityId }: Floor,
  orderId: string,
  holdId: string,
  metadata: EventMetadata,
): Promise<void> {
  await onOrder(
    ctx,
    labelId,
    orderOf(labelId, orderId),
    { type: 'ReleaseHold', holdId, facilityId, at: new Date() },
    metadata,
  );
}

/**
 * Sends a printed item back to the press: it is `reprinting` until its print file is
 * rendered again from the order's events and found identical (a workflow started from
 * the log), then back at `ready`. Asked again while it runs, the same reprint answers.
 */
export async function requestReprint(
  ctx: AppContext,
  { labelId, facilityId }: Floor,
  orderItemId: string,
  reprint: {
    reason: (typeof REPRINT_REASONS)[number];
    note?: string | undefined;
    records?: number[] | undefined;
  },
  metadata: EventMetadata,
): Promise<{ reprintId: string; orderItemId: string; workflowId: string }> {
  const row = await findOrderItem(ctx.pool, labelId, orderItemId);
  if (!row) throw new DomainError('not_found', 'order item not found', 'order_item_not_found');
  const { order } = await onOrder(
    ctx,
    labelId,
    row.stream_id,
    {
      type: 'RequestReprint',
      reprintId: randomUUID(),
      orderItemId,
      ...reprint,
      facilityId,
      at: new Date(),
    },
    metadata,
  );
  const reprintId = order.items.get(orderItemId)!.reprintId!;
  return { reprintId, orderItemId, workflowId: workflowIds.reprint(reprintId) };
}

import { randomUUID } from 'node:crypto';
import { unshippedPastShipBy } from '#projections/order-production';
import { lateOrders } from '#projections/orders';
import { type OrderCommand, orderAggregate } from '../domain/order/decider.ts';
import { orderStream } from '../domain/order/events.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { workflowIds } from '../temporal/contract.ts';
import { derivedIds, handleCommand } from './command-handler.ts';
import type { AppContext } from './context.ts';

export interface RetryAnswer {
  orderId: string;
  /** the order items rendered again (none when a retry was already under way) */
  orderItemIds: string[];
  workflowId: string;
}

/**
 * Renders an order's failed items again: records OrderRetryRequested (who asked is in
 * its metadata); the order's workflow runs again from the log. Asking while a retry is
 * under way changes nothing; an order without failed items is 409 nothing_to_retry.
 */
export async function retryOrder(
  ctx: AppContext,
  labelId: string,
  orderId: string,
  metadata: EventMetadata,
): Promise<RetryAnswer> {
  // the stream is the label's: another label's order id is simply not found there
  const r = await handleCommand(
    ctx.store,
    orderAggregate,
    orderStream(labelId, orderId),
    { type: 'RequestRetry', retryId: randomUUID(), at: new Date() },
    { ...metadata, labelId },
  );
  await ctx.readModels.seen('orders', r.appended?.position);
  const retried = r.events.find((e) => e.type === 'OrderRetryRequested');
  return {
    orderId,
    orderItemIds: retried?.type === 'OrderRetryRequested' ? retried.data.orderItemIds : [],
    workflowId: workflowIds.order(labelId, orderId),
  };
}

export interface CancelAnswer {
  orderId: string;
  status: 'cancelled';
  cancelledAt: string;
}

/**
 * Cancels an order that is not to be printed: OrderCancelled; its workflow is cancelled
 * from the log and no further print file is recorded. Cancelling again answers the same.
 * The label's admin cancels while no item is batched or printed (the edit window); the
 * operator until every item has shipped.
 */
export async function cancelOrder(
  ctx: AppContext,
  labelId: string,
  orderId: string,
  reason: string | undefined,
  metadata: EventMetadata,
): Promise<CancelAnswer> {
  const r = await handleCommand(
    ctx.store,
    orderAggregate,
    orderStream(labelId, orderId),
    // the operator may stop an order on the shop floor; the label only in its edit window
    { type: 'CancelOrder', reason, override: metadata.actor === 'operator', at: new Date() },
    { ...metadata, labelId },
  );
  // a render of the order in this process that has yet to begin sees it cancelled
  ctx.orderStates?.keepAppended(orderStream(labelId, orderId), r);
  await ctx.readModels.seen('orders', r.appended?.position);
  if (!r.state.exists || !r.state.cancelledAt) throw new Error(`order ${orderId} not cancelled`);
  return { orderId, status: 'cancelled', cancelledAt: r.state.cancelledAt };
}

const SWEEP_BATCH = 500;

/**
 * The deadline watch's one step over a batch of orders: each is given the command, by the
 * deadline watch; answers how many recorded something. `eventKey`: the event ids derive
 * from the order and it, for a command its decider takes once.
 */
export async function sweepOrders(
  ctx: AppContext,
  orders: { stream_id: string }[],
  command: OrderCommand,
  eventKey?: string,
): Promise<number> {
  let changed = 0;
  for (const { stream_id } of orders) {
    const r = await handleCommand(
      ctx.store,
      orderAggregate,
      stream_id,
      command,
      { actor: 'system:deadlines' },
      eventKey ? { eventIds: derivedIds(stream_id, eventKey) } : {},
    );
    if (r.events.length > 0) changed++;
  }
  return changed;
}

/**
 * Records OrderWentOverdue for unfinished orders past their deadline (once each: the
 * event id derives from the order, and the decider takes it only once). Returns how many
 * went late in this round.
 */
export const markOverdueOrders = async (ctx: AppContext, now = new Date()): Promise<number> =>
  sweepOrders(
    ctx,
    await lateOrders(ctx.pool, SWEEP_BATCH),
    { type: 'MarkOverdue', at: now },
    'overdue',
  );

/**
 * Records OrderWentLate for orders not shipped by their ship-by time (time on hold not
 * counted): once each, as the overdue watch does. Returns how many went late.
 */
export const markLateShipments = async (ctx: AppContext, now = new Date()): Promise<number> =>
  sweepOrders(
    ctx,
    await unshippedPastShipBy(ctx.pool, SWEEP_BATCH),
    { type: 'MarkLate', at: now },
    'late',
  );

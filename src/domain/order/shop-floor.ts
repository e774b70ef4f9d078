import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  approvedForProduction,
  awaitingApproval,
  type Command,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  itemOf,
  type OrderState,
  producible,
  type Recorded,
  STAGE_RANK,
  stageConflict,
  withItem,
} from './state.ts';

/*
 * The shop floor: stages scanned, items taken into press runs and let go.
 */

export function recordItemStage(
  command: Command<'RecordItemStage'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const item = itemOf(state, command.orderItemId, command.facilityId);
  producible(state);
  // an item whose barcode was changed is known by its new code only
  if (command.code !== undefined && command.code !== item.barcode.value)
    throw new DomainError('not_found', 'no item of this label has this code', 'code_not_found');
  if (item.stage === command.stage) return []; // reported again: the same answer
  if (!approvedForProduction(item)) throw awaitingApproval(item);
  const rank = item.stage === undefined ? undefined : STAGE_RANK[item.stage];
  if (rank === undefined || rank > (STAGE_RANK[command.stage] ?? 0))
    throw stageConflict(item, command.stage);
  const { orderItemId, via, station, batchId } = command;
  return command.stage === 'printed'
    ? [
        {
          type: 'OrderItemPrinted',
          data: {
            orderItemId,
            via,
            ...(station ? { station } : {}),
            ...(batchId ? { batchId } : {}),
            printedAt: at,
          },
        },
      ]
    : [
        {
          type: 'OrderItemPacked',
          data: { orderItemId, via, ...(station ? { station } : {}), packedAt: at },
        },
      ];
}

export function batchItem(
  command: Command<'BatchItem'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const item = itemOf(state, command.orderItemId, command.facilityId);
  if (item.stage === 'batched' && item.batchId === command.batchId) return []; // claimed already
  const order = producible(state);
  if (!approvedForProduction(item)) throw awaitingApproval(item);
  if (item.status !== 'ready' || item.stage !== 'ready') throw stageConflict(item, 'batched');
  if (order.print.renderer < 2)
    throw new DomainError(
      'conflict',
      `item ${item.item.itemId} has a print file of the first renderer (not PDF/X-4): it cannot be imposed`,
      'not_imposable',
    );
  return [
    {
      type: 'OrderItemBatched',
      data: { orderItemId: command.orderItemId, batchId: command.batchId, batchedAt: at },
    },
  ];
}

export function unbatchItem(
  command: Command<'UnbatchItem'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const item = itemOf(state, command.orderItemId);
  // only the batch that holds it lets it go; printed is printed
  if (item.stage !== 'batched' || item.batchId !== command.batchId) return [];
  return [
    {
      type: 'OrderItemUnbatched',
      data: {
        orderItemId: command.orderItemId,
        batchId: command.batchId,
        reason: command.reason,
        unbatchedAt: at,
      },
    },
  ];
}

export function onOrderItemPrinted(state: Recorded, event: Event<'OrderItemPrinted'>): OrderState {
  return withItem(state, event.data.orderItemId, (i) => ({
    ...i,
    stage: 'printed',
    batchId: undefined,
    // a reprint's file of some records is printed: the next press run prints the item's own
    reprintFile: undefined,
  }));
}

export function onOrderItemPacked(state: Recorded, event: Event<'OrderItemPacked'>): OrderState {
  return withItem(state, event.data.orderItemId, (i) => ({ ...i, stage: 'packed' }));
}

export function onOrderItemBatched(state: Recorded, event: Event<'OrderItemBatched'>): OrderState {
  return withItem(state, event.data.orderItemId, (i) => ({
    ...i,
    stage: 'batched',
    batchId: event.data.batchId,
  }));
}

export function onOrderItemUnbatched(
  state: Recorded,
  event: Event<'OrderItemUnbatched'>,
): OrderState {
  return withItem(state, event.data.orderItemId, (i) =>
    i.batchId === event.data.batchId && i.stage === 'batched'
      ? { ...i, stage: 'ready', batchId: undefined }
      : i,
  );
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  RecordItemStage: recordItemStage,
  BatchItem: batchItem,
  UnbatchItem: unbatchItem,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  OrderItemPrinted: onOrderItemPrinted,
  OrderItemPacked: onOrderItemPacked,
  OrderItemBatched: onOrderItemBatched,
  OrderItemUnbatched: onOrderItemUnbatched,
} satisfies EvolveHandlers;

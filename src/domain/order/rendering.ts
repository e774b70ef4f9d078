import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  type Command,
  cancelled,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  itemOf,
  type OrderState,
  proofDue,
  type Recorded,
  withItem,
} from './state.ts';

/*
 * Rendering: print files recorded with their preflight, items failed, the order complete, failed
 * items retried.
 */

export function recordPrintFile(
  command: Command<'RecordPrintFile'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (itemOf(state, command.orderItemId).barcodeVersion !== command.forVersion) return [];
  if (state.exists && state.status === 'cancelled') return []; // no further print files
  const { orderItemId, file, preflight } = command;
  const failed = preflight?.rules.filter((r) => r.result === 'failure') ?? [];
  return [
    { type: 'PrintFileGenerated', data: { orderItemId, ...file, generatedAt: at } },
    ...(preflight
      ? [
          {
            type: 'PrintFilePreflighted' as const,
            data: { orderItemId, sha256: file.sha256, ...preflight, checkedAt: at },
          },
        ]
      : []),
    ...(failed.length
      ? [
          {
            type: 'OrderItemFailed' as const,
            data: {
              orderItemId,
              reason: `preflight: ${failed.map((r) => `${r.rule} (${r.detail})`).join('; ')}`,
              kind: 'preflight' as const,
              failedAt: at,
            },
          },
        ]
      : []),
  ];
}

export function failItem(
  command: Command<'FailItem'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const item = itemOf(state, command.orderItemId);
  if (item.status === 'failed') return [];
  return [
    {
      type: 'OrderItemFailed',
      data: {
        orderItemId: command.orderItemId,
        reason: command.reason,
        kind: command.kind,
        failedAt: at,
      },
    },
  ];
}

export function completeOrder(
  _command: Command<'CompleteOrder'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (
    !state.exists ||
    state.status === 'ready' ||
    state.status === 'failed' ||
    state.status === 'cancelled'
  )
    return [];
  const items = [...state.items.values()];
  if (items.some((i) => i.status === 'pending')) {
    throw new DomainError('conflict', 'order items are still being rendered', 'order_incomplete');
  }
  const failed = items.filter((i) => i.status === 'failed');
  return failed.length === 0
    ? [{ type: 'OrderReady', data: { readyAt: at } }]
    : [
        {
          type: 'OrderFailed',
          data: {
            reason: failed.map((i) => `${i.item.itemId}: ${i.reason}`).join('; '),
            failedAt: at,
          },
        },
      ];
}

export function requestRetry(
  command: Command<'RequestRetry'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  if (state.status === 'cancelled') throw cancelled();
  const failed = [...state.items.values()].filter((i) => i.status === 'failed');
  if (state.status === 'received' || state.status === 'rendering') {
    // a retry under way, or the first run not done: asking again changes nothing
    if (failed.length === 0) return [];
    // its workflow still renders the other items; a retry now would race it
    throw new DomainError(
      'conflict',
      'the order is still rendering; retry its failed items once it has finished',
      'order_in_progress',
    );
  }
  if (failed.length === 0)
    throw new DomainError('conflict', 'no item of the order has failed', 'nothing_to_retry');
  return [
    {
      type: 'OrderRetryRequested',
      data: {
        retryId: command.retryId,
        orderItemIds: failed.map((i) => i.item.orderItemId),
        requestedAt: at,
      },
    },
  ];
}

export function onPrintFileGenerated(
  state: Recorded,
  event: Event<'PrintFileGenerated'>,
): OrderState {
  const { orderItemId, storageKey, sha256, pages, bytes, barcode, warnings } = event.data;
  return withItem(state, orderItemId, (i) => ({
    ...i,
    status: 'ready',
    files: [...i.files, { storageKey, sha256, pages, bytes, barcode, warnings }],
    // the first file puts it on the shop floor; a later one (a new barcode) leaves it where it is
    stage: i.stage ?? 'ready',
    // what is approved is what prints: a new file needs its own proof approved
    approval: i.approval && proofDue(i.approval),
    revisedSinceFile: false,
  }));
}

export function onOrderItemFailed(state: Recorded, event: Event<'OrderItemFailed'>): OrderState {
  return withItem(state, event.data.orderItemId, (i) => ({
    ...i,
    status: 'failed',
    reason: event.data.reason,
  }));
}

export function onOrderReady(state: Recorded, _event: Event<'OrderReady'>): OrderState {
  return { ...state, status: 'ready' };
}

export function onOrderFailed(state: Recorded, event: Event<'OrderFailed'>): OrderState {
  return { ...state, status: 'failed', reason: event.data.reason };
}

export function onOrderRetryRequested(
  state: Recorded,
  event: Event<'OrderRetryRequested'>,
): OrderState {
  const items = new Map(state.items);
  for (const id of event.data.orderItemIds) {
    const i = items.get(id);
    if (i) items.set(id, { ...i, status: 'pending', reason: undefined });
  }
  const { reason: _reason, ...rest } = state;
  return { ...rest, status: 'received', items, retries: state.retries + 1 };
}

export function onPrintFilePreflighted(
  state: Recorded,
  event: Event<'PrintFilePreflighted'>,
): OrderState {
  const { plates, maxInkCoverage, minDpi } = event.data;
  return withItem(state, event.data.orderItemId, (i) => ({
    ...i,
    preflight: { plates, maxInkCoverage, minDpi },
  }));
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  RecordPrintFile: recordPrintFile,
  FailItem: failItem,
  CompleteOrder: completeOrder,
  RequestRetry: requestRetry,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  PrintFileGenerated: onPrintFileGenerated,
  OrderItemFailed: onOrderItemFailed,
  OrderReady: onOrderReady,
  OrderFailed: onOrderFailed,
  OrderRetryRequested: onOrderRetryRequested,
  PrintFilePreflighted: onPrintFilePreflighted,
} satisfies EvolveHandlers;

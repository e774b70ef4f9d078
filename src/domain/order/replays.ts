import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  type Command,
  cancelled,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  type ItemState,
  itemOf,
  type OrderState,
  type Recorded,
  stageConflict,
  withItem,
} from './state.ts';

/*
 * Replays and reprints: print files made again from the log and compared, byte for byte.
 */

export function requestReplay(
  command: Command<'RequestReplay'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  if (![...state.items.values()].some((i) => i.files.length > 0)) {
    throw new DomainError('conflict', 'the order has no print file yet', 'nothing_to_replay');
  }
  return [{ type: 'OrderReplayRequested', data: { replayId: command.replayId, requestedAt: at } }];
}

export function recordReplay(
  command: Command<'RecordReplay'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  // a replay gives its verdict once; a retried activity records nothing twice
  if (!state.exists || state.replaysRecorded.has(command.replayId)) return [];
  const { replayId, results } = command;
  return [
    { type: 'OrderReplayed', data: { replayId, results, replayedAt: at } },
    ...results
      .filter((r) => !r.matches)
      .map((r) => ({
        type: 'PrintFileMismatchDetected' as const,
        data: {
          replayId,
          orderItemId: r.orderItemId,
          expected: r.expected,
          actual: r.actual,
          detectedAt: at,
        },
      })),
  ];
}

export function requestReprint(
  command: Command<'RequestReprint'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  if (state.status === 'cancelled') throw cancelled();
  const item = itemOf(state, command.orderItemId, command.facilityId);
  if (item.stage === 'reprinting') return []; // asked again while it runs
  // only what was printed can be printed again
  if (item.stage === undefined || item.stage === 'ready' || item.stage === 'batched')
    throw stageConflict(item, 'reprinted');
  const { reprintId, orderItemId, reason, note, records } = command;
  if (records) checkRecords(item, records);
  return [
    {
      type: 'OrderItemReprintRequested',
      data: {
        reprintId,
        orderItemId,
        reason,
        ...(note ? { note } : {}),
        ...(records ? { records } : {}),
        requestedAt: at,
      },
    },
  ];
}

/** Records can be named of a variable item only, and only those it has. */
function checkRecords(item: ItemState, records: number[]): void {
  const rows = item.item.dataset?.rows;
  if (rows === undefined)
    throw new DomainError(
      'invalid',
      'the item is not a variable item: reprint it whole (no records)',
      'not_variable',
    );
  const beyond = records.find((r) => r < 1 || r > rows);
  if (beyond !== undefined)
    throw new DomainError(
      'invalid',
      `the item has records 1-${rows}; there is no record ${beyond}`,
      'record_not_found',
    );
}

export function recordReprint(
  command: Command<'RecordReprint'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const item = itemOf(state, command.orderItemId);
  // a reprint gives its verdict once; a retried activity records nothing twice
  if (item.reprintId !== command.reprintId) return [];
  const { reprintId, orderItemId, expected, actual, records } = command;
  // a file of some records matches when the whole file did and each record's bytes did
  const matches = expected === actual && (records?.matched ?? true);
  const reason = item.reprintReason ?? 'other';
  return [
    {
      type: 'OrderItemReprinted',
      data: {
        reprintId,
        orderItemId,
        reason,
        expected,
        actual,
        matches,
        ...(records && item.reprintRecords
          ? { records: item.reprintRecords, file: records.file }
          : {}),
        reprintedAt: at,
      },
    },
    ...(matches
      ? []
      : [
          {
            type: 'PrintFileMismatchDetected' as const,
            data: { replayId: reprintId, orderItemId, expected, actual, detectedAt: at },
          },
        ]),
  ];
}

export function onOrderReplayed(state: Recorded, event: Event<'OrderReplayed'>): OrderState {
  return {
    ...state,
    replaysRecorded: new Set([...state.replaysRecorded, event.data.replayId]),
  };
}

export function onOrderItemReprintRequested(
  state: Recorded,
  event: Event<'OrderItemReprintRequested'>,
): OrderState {
  return withItem(state, event.data.orderItemId, (i) => ({
    ...i,
    stage: 'reprinting',
    reprintId: event.data.reprintId,
    reprintReason: event.data.reason,
    reprintRecords: event.data.records,
    reprintFile: undefined,
    shipmentId: undefined,
  }));
}

export function onOrderItemReprinted(
  state: Recorded,
  event: Event<'OrderItemReprinted'>,
): OrderState {
  // the same file again: back to the start of the shop floor; another file: it waits
  return withItem(state, event.data.orderItemId, (i) =>
    event.data.matches
      ? {
          ...i,
          stage: 'ready',
          reprintId: undefined,
          reprintReason: undefined,
          reprintRecords: undefined,
          reprintFile: event.data.file,
        }
      : i,
  );
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  RequestReplay: requestReplay,
  RecordReplay: recordReplay,
  RequestReprint: requestReprint,
  RecordReprint: recordReprint,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  OrderReplayed: onOrderReplayed,
  OrderItemReprintRequested: onOrderItemReprintRequested,
  OrderItemReprinted: onOrderItemReprinted,
} satisfies EvolveHandlers;

import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import type { Encrypted } from '../shared/encrypted.ts';
import type { BarcodeFormat } from './barcode.ts';
import {
  type ItemFailure,
  type OrderEvent,
  type OrderItem,
  orderEvents,
  orderStream,
  type Preflight,
  type PrintSnapshot,
} from './events.ts';

type Barcode = { format: BarcodeFormat; value: string };
type PrintFileFacts = {
  storageKey: string;
  sha256: string;
  pages: number;
  bytes: number;
  barcode: Barcode;
  warnings: string[];
};

export type OrderCommand =
  | {
      type: 'ReceiveOrder';
      orderId: string;
      labelId: string;
      bodyHash: string;
      source: { channel: 'shop' | 'fulfillment'; integrationId?: string };
      customer: Encrypted | null;
      items: OrderItem[];
      /** how long the label gives an order to render */
      renderWithinMinutes: number;
      /** how its print files are made */
      print: PrintSnapshot;
      at: Date;
    }
  | { type: 'StartRendering'; at: Date }
  | {
      type: 'RecordPrintFile';
      orderItemId: string;
      /** the barcode version the file was rendered for: a newer update supersedes it */
      forVersion: number;
      file: PrintFileFacts & { images: { area: string; layer: number; effectiveDpi: number }[] };
      /** the file's preflight: a failed one fails the item (the file stays recorded) */
      preflight?: Preflight;
      at: Date;
    }
  | { type: 'FailItem'; orderItemId: string; reason: string; kind: ItemFailure; at: Date }
  | { type: 'CompleteOrder'; at: Date }
  | { type: 'UpdateBarcode'; orderItemId: string; barcode: Barcode; at: Date }
  | { type: 'RecordBarcodeRegenerated'; orderItemId: string; barcode: Barcode; at: Date }
  | { type: 'RequestReplay'; replayId: string; at: Date }
  | { type: 'RequestRetry'; retryId: string; at: Date }
  | { type: 'CancelOrder'; reason?: string | undefined; at: Date }
  | { type: 'MarkOverdue'; at: Date }
  | {
      type: 'RecordReplay';
      replayId: string;
      results: { orderItemId: string; expected: string; actual: string; matches: boolean }[];
      at: Date;
    };

export interface ItemState {
  item: OrderItem;
  status: 'pending' | 'ready' | 'failed';
  reason?: string;
  /** the barcode the next print file carries */
  barcode: Barcode;
  /** how many barcode updates there were: the version a regeneration renders */
  barcodeVersion: number;
  files: PrintFileFacts[];
}

export type OrderState =
  | { exists: false }
  | {
      exists: true;
      orderId: string;
      labelId: string;
      bodyHash: string;
      status: 'received' | 'rendering' | 'ready' | 'failed' | 'cancelled';
      reason?: string;
      receivedAt: string;
      renderDueAt: string;
      print: PrintSnapshot;
      /** the order went past its deadline unfinished, and that is recorded */
      overdue: boolean;
      /** retries requested so far: each is a new run of the work, with its own event ids */
      retries: number;
      cancelledAt?: string;
      items: Map<string, ItemState>;
      /** replays whose results are recorded */
      replaysRecorded: ReadonlySet<string>;
    };

export const defaultBarcode = (orderItemId: string): Barcode => ({
  format: 'code128',
  value: orderItemId,
});

const cancelled = () => new DomainError('conflict', 'the order is cancelled', 'order_cancelled');

function itemOf(state: OrderState, orderItemId: string) {
  const item = state.exists ? state.items.get(orderItemId) : undefined;
  if (!state.exists || !item)
    throw new DomainError('not_found', 'order item not found', 'order_item_not_found');
  return item;
}

export const orderDecider: Decider<OrderCommand, OrderEvent, OrderState> = {
  initialState: { exists: false },
  decide(command, state) {
    const at = command.at.toISOString();
    switch (command.type) {
      case 'ReceiveOrder': {
        if (state.exists)
          throw new DomainError('conflict', `order ${command.orderId} exists`, 'order_exists');
        const { orderId, labelId, bodyHash, source, customer, items, print } = command;
        const renderDueAt = new Date(
          command.at.getTime() + command.renderWithinMinutes * 60_000,
        ).toISOString();
        return [
          {
            type: 'OrderReceived',
            data: {
              orderId,
              labelId,
              bodyHash,
              source,
              customer,
              items,
              receivedAt: at,
              renderDueAt,
              print,
            },
          },
        ];
      }
      case 'StartRendering':
        // a cancelled order is not rendered; one already rendering goes on
        if (!state.exists || state.status !== 'received') return [];
        return [{ type: 'OrderRenderingStarted', data: { startedAt: at } }];
      case 'RecordPrintFile': {
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
      case 'FailItem': {
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
      case 'CompleteOrder': {
        if (
          !state.exists ||
          state.status === 'ready' ||
          state.status === 'failed' ||
          state.status === 'cancelled'
        )
          return [];
        const items = [...state.items.values()];
        if (items.some((i) => i.status === 'pending')) {
          throw new DomainError(
            'conflict',
            'order items are still being rendered',
            'order_incomplete',
          );
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
      case 'UpdateBarcode':
        itemOf(state, command.orderItemId);
        if (state.exists && state.status === 'cancelled') throw cancelled();
        return [
          {
            type: 'OrderItemBarcodeUpdated',
            data: { orderItemId: command.orderItemId, barcode: command.barcode, updatedAt: at },
          },
        ];
      case 'RecordBarcodeRegenerated':
        itemOf(state, command.orderItemId);
        return [
          {
            type: 'BarcodeRegenerated',
            data: { orderItemId: command.orderItemId, barcode: command.barcode, regeneratedAt: at },
          },
        ];
      case 'RequestRetry': {
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
      case 'CancelOrder': {
        if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
        if (state.status === 'cancelled') return [];
        return [
          {
            type: 'OrderCancelled',
            data: { ...(command.reason ? { reason: command.reason } : {}), cancelledAt: at },
          },
        ];
      }
      case 'MarkOverdue': {
        if (
          !state.exists ||
          state.overdue ||
          state.status === 'ready' ||
          state.status === 'cancelled' ||
          Date.parse(state.renderDueAt) >= command.at.getTime()
        )
          return [];
        return [
          { type: 'OrderWentOverdue', data: { renderDueAt: state.renderDueAt, noticedAt: at } },
        ];
      }
      case 'RequestReplay': {
        if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
        if (![...state.items.values()].some((i) => i.files.length > 0)) {
          throw new DomainError('conflict', 'the order has no print file yet', 'nothing_to_replay');
        }
        return [
          { type: 'OrderReplayRequested', data: { replayId: command.replayId, requestedAt: at } },
        ];
      }
      case 'RecordReplay': {
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
    }
  },
  evolve(state, event) {
    if (event.type === 'OrderReceived') {
      const d = event.data;
      return {
        exists: true,
        orderId: d.orderId,
        labelId: d.labelId,
        bodyHash: d.bodyHash,
        status: 'received',
        receivedAt: d.receivedAt,
        renderDueAt: d.renderDueAt,
        print: d.print,
        overdue: false,
        retries: 0,
        replaysRecorded: new Set(),
        items: new Map(
          d.items.map((item) => [
            item.orderItemId,
            {
              item,
              status: 'pending' as const,
              barcode: defaultBarcode(item.orderItemId),
              barcodeVersion: 0,
              files: [],
            },
          ]),
        ),
      };
    }
    if (!state.exists) return state;
    const withItem = (id: string, change: (i: ItemState) => ItemState) => {
      const current = state.items.get(id);
      if (!current) return state;
      const items = new Map(state.items);
      items.set(id, change(current));
      return { ...state, items };
    };
    switch (event.type) {
      case 'OrderRenderingStarted':
        return { ...state, status: 'rendering' };
      case 'PrintFileGenerated': {
        const { orderItemId, storageKey, sha256, pages, bytes, barcode, warnings } = event.data;
        return withItem(orderItemId, (i) => ({
          ...i,
          status: 'ready',
          files: [...i.files, { storageKey, sha256, pages, bytes, barcode, warnings }],
        }));
      }
      case 'OrderItemFailed':
        return withItem(event.data.orderItemId, (i) => ({
          ...i,
          status: 'failed',
          reason: event.data.reason,
        }));
      case 'OrderReady':
        return { ...state, status: 'ready' };
      case 'OrderFailed':
        return { ...state, status: 'failed', reason: event.data.reason };
      case 'OrderItemBarcodeUpdated':
        return withItem(event.data.orderItemId, (i) => ({
          ...i,
          barcode: event.data.barcode,
          barcodeVersion: i.barcodeVersion + 1,
        }));
      case 'OrderRetryRequested': {
        const items = new Map(state.items);
        for (const id of event.data.orderItemIds) {
          const i = items.get(id);
          if (i) items.set(id, { ...i, status: 'pending', reason: undefined });
        }
        const { reason: _reason, ...rest } = state;
        return { ...rest, status: 'received', items, retries: state.retries + 1 };
      }
      case 'OrderCancelled':
        return { ...state, status: 'cancelled', cancelledAt: event.data.cancelledAt };
      case 'OrderWentOverdue':
        return { ...state, overdue: true };
      case 'OrderReplayed':
        return {
          ...state,
          replaysRecorded: new Set([...state.replaysRecorded, event.data.replayId]),
        };
      default:
        return state;
    }
  },
};

export const orderAggregate: Aggregate<
  OrderCommand,
  OrderEvent,
  OrderState,
  Parameters<typeof orderStream>
> = {
  events: orderEvents,
  decider: orderDecider,
  stream: orderStream,
};

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
  type ProductionStage,
  type REPRINT_REASONS,
  type STAGE_SOURCES,
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
      /** how long the label gives an order to be shipped; null: no ship-by deadline */
      shipWithinHours: number | null;
      giftMessage: Encrypted | null;
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
    }
  | {
      type: 'RecordItemStage';
      orderItemId: string;
      /** what was scanned: it must be what the item's slug barcode holds now */
      code?: string | undefined;
      stage: 'printed' | 'packed';
      via: (typeof STAGE_SOURCES)[number];
      station?: string | undefined;
      batchId?: string | undefined;
      at: Date;
    }
  | {
      type: 'ShipItems';
      shipmentId: string;
      /** every item of the order when absent */
      orderItemIds?: string[] | undefined;
      carrier: string;
      trackingNumber: string;
      trackingUrl?: string | undefined;
      shippedAt: Date;
      at: Date;
    }
  | { type: 'DeliverShipment'; shipmentId: string; at: Date }
  | { type: 'ReturnShipment'; shipmentId: string; reason: string; at: Date }
  | { type: 'HoldOrder'; holdId: string; reason: string; at: Date }
  | { type: 'ReleaseHold'; holdId: string; at: Date }
  | {
      type: 'RequestReprint';
      reprintId: string;
      orderItemId: string;
      reason: (typeof REPRINT_REASONS)[number];
      note?: string | undefined;
      at: Date;
    }
  | {
      type: 'RecordReprint';
      reprintId: string;
      orderItemId: string;
      expected: string;
      actual: string;
      at: Date;
    }
  | { type: 'MarkLate'; at: Date }
  | { type: 'BatchItem'; orderItemId: string; batchId: string; at: Date }
  | { type: 'UnbatchItem'; orderItemId: string; batchId: string; reason: string; at: Date }
  | {
      type: 'RecordMockup';
      mockup: Omit<Extract<OrderEvent, { type: 'MockupRendered' }>['data'], 'renderedAt'>;
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
  /** where it is on the shop floor; none until its first print file is made */
  stage: ProductionStage | undefined;
  /** the shipment it left in (until a reprint or a return) */
  shipmentId: string | undefined;
  /** the reprint under way, while the item is reprinting */
  reprintId: string | undefined;
  reprintReason: (typeof REPRINT_REASONS)[number] | undefined;
  /** the press run it is in, while it is batched */
  batchId: string | undefined;
  /** what the preflight of its latest print file found: the plates, coverage and resolution */
  preflight: { plates: string[]; maxInkCoverage: number; minDpi: number | undefined } | undefined;
}

export interface ShipmentState {
  orderItemIds: string[];
  carrier: string;
  trackingNumber: string;
  trackingUrl: string | undefined;
  shippedAt: string;
  delivered: boolean;
  returned: boolean;
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
      /** the mockups recorded, by mockupKey */
      mockups: ReadonlyMap<string, Extract<OrderEvent, { type: 'MockupRendered' }>['data']>;
      /** when it must be shipped (hold time not counted); null: no deadline */
      shipBy: string | null;
      /** the customer's gift note for the packing slip, encrypted */
      giftMessage: Encrypted | null;
      /** open holds: while one is open, nothing of the order is batched, printed or shipped */
      holds: ReadonlyMap<string, { reason: string; since: string }>;
      /** holds ever placed, released or not (a released one is not placed again) */
      holdsSeen: ReadonlySet<string>;
      /** how long the order has been on hold, in milliseconds (closed holds) */
      heldMs: number;
      shipments: ReadonlyMap<string, ShipmentState>;
      /** the ship-by time went past unshipped, and that is recorded */
      late: boolean;
    };

/** The production stages in their order; reprinting and returned stand apart. */
const STAGE_RANK: Partial<Record<ProductionStage, number>> = {
  ready: 0,
  batched: 1,
  printed: 2,
  packed: 3,
  shipped: 4,
  delivered: 5,
};

export const defaultBarcode = (orderItemId: string): Barcode => ({
  format: 'code128',
  value: orderItemId,
});

const cancelled = () => new DomainError('conflict', 'the order is cancelled', 'order_cancelled');
const onHold = (holds: ReadonlyMap<string, { reason: string }>) =>
  new DomainError(
    'conflict',
    `the order is on hold (${[...holds.values()].map((h) => h.reason).join('; ')}): release it first`,
    'order_on_hold',
  );

/** The order as production may touch it: recorded, not cancelled, not on hold. */
function producible(state: OrderState) {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  if (state.status === 'cancelled') throw cancelled();
  if (state.holds.size > 0) throw onHold(state.holds);
  return state;
}

const stageConflict = (item: ItemState, wanted: string) =>
  new DomainError(
    'conflict',
    `item ${item.item.itemId} is ${item.stage ?? 'not rendered yet'}; it cannot be ${wanted} now`,
    'stage_conflict',
  );

/** When the order must be shipped by now: its ship-by time moved on by its time on hold. */
export function effectiveShipBy(state: Extract<OrderState, { exists: true }>, now: Date) {
  if (state.shipBy === null) return undefined;
  const open = [...state.holds.values()].reduce(
    (ms, h) => ms + Math.max(0, now.getTime() - Date.parse(h.since)),
    0,
  );
  return new Date(Date.parse(state.shipBy) + state.heldMs + open);
}

/** A mockup is drawn once per item, print file, template revision, width and format. */
export const mockupKey = (m: {
  orderItemId: string;
  printFileSha256: string;
  templateId: string;
  templateRevision: number;
  width: number;
  format: string;
}) =>
  [m.orderItemId, m.printFileSha256, m.templateId, m.templateRevision, m.width, m.format].join(
    '\u0000',
  );

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
        const { orderId, labelId, bodyHash, source, customer, items, print, giftMessage } = command;
        const renderDueAt = new Date(
          command.at.getTime() + command.renderWithinMinutes * 60_000,
        ).toISOString();
        const shipBy =
          command.shipWithinHours === null
            ? null
            : new Date(command.at.getTime() + command.shipWithinHours * 3_600_000).toISOString();
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
              shipBy,
              giftMessage,
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
        const items = [...state.items.values()];
        if (
          items.length > 0 &&
          items.every((i) => i.stage === 'shipped' || i.stage === 'delivered')
        )
          throw new DomainError(
            'conflict',
            'every item of the order has shipped: there is nothing left to cancel',
            'order_shipped',
          );
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
      case 'RecordItemStage': {
        const order = producible(state);
        const item = itemOf(order, command.orderItemId);
        // an item whose barcode was changed is known by its new code only
        if (command.code !== undefined && command.code !== item.barcode.value)
          throw new DomainError(
            'not_found',
            'no item of this label has this code',
            'code_not_found',
          );
        if (item.stage === command.stage) return []; // reported again: the same answer
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
      case 'ShipItems': {
        if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
        const { shipmentId, carrier, trackingNumber, trackingUrl } = command;
        const ids = command.orderItemIds ?? [...state.items.keys()];
        const shipped = state.shipments.get(shipmentId);
        if (shipped) {
          // the same shipment told again (an Idempotency-Key sent twice): the same answer
          const same =
            shipped.carrier === carrier &&
            shipped.trackingNumber === trackingNumber &&
            shipped.trackingUrl === trackingUrl &&
            shipped.orderItemIds.length === ids.length &&
            ids.every((id) => shipped.orderItemIds.includes(id));
          if (same) return [];
          throw new DomainError(
            'conflict',
            'this Idempotency-Key was used for another shipment',
            'idempotency_key_reused',
          );
        }
        const order = producible(state);
        if (command.shippedAt.getTime() < Date.parse(state.receivedAt))
          throw new DomainError(
            'invalid',
            `shippedAt is before the order was received (${state.receivedAt})`,
            'invalid_shipped_at',
            { field: 'shippedAt' },
          );
        for (const id of ids) {
          const item = itemOf(order, id);
          if (item.stage === 'shipped' || item.stage === 'delivered')
            throw new DomainError(
              'conflict',
              `item ${item.item.itemId} was shipped already (shipment ${item.shipmentId})`,
              'already_shipped',
            );
          if (item.stage === undefined || STAGE_RANK[item.stage] === undefined)
            throw stageConflict(item, 'shipped');
        }
        return [
          {
            type: 'OrderShipped',
            data: {
              shipmentId,
              orderItemIds: ids,
              carrier,
              trackingNumber,
              ...(trackingUrl ? { trackingUrl } : {}),
              shippedAt: command.shippedAt.toISOString(),
            },
          },
        ];
      }
      case 'DeliverShipment':
      case 'ReturnShipment': {
        const shipment = state.exists ? state.shipments.get(command.shipmentId) : undefined;
        if (!shipment)
          throw new DomainError('not_found', 'shipment not found', 'shipment_not_found');
        // an item reprinted since is no longer this shipment's
        const stillIn = shipment.orderItemIds.filter(
          (id) => state.exists && state.items.get(id)?.shipmentId === command.shipmentId,
        );
        if (command.type === 'DeliverShipment') {
          if (shipment.delivered) return [];
          if (shipment.returned)
            throw new DomainError('conflict', 'the shipment came back', 'shipment_returned');
          return [
            {
              type: 'ShipmentDelivered',
              data: { shipmentId: command.shipmentId, orderItemIds: stillIn, deliveredAt: at },
            },
          ];
        }
        if (shipment.returned) return [];
        return [
          {
            type: 'ShipmentReturned',
            data: {
              shipmentId: command.shipmentId,
              orderItemIds: stillIn,
              reason: command.reason,
              returnedAt: at,
            },
          },
        ];
      }
      case 'HoldOrder': {
        if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
        if (state.holdsSeen.has(command.holdId)) return [];
        if (state.status === 'cancelled') throw cancelled();
        return [
          {
            type: 'OrderHeld',
            data: { holdId: command.holdId, reason: command.reason, heldAt: at },
          },
        ];
      }
      case 'ReleaseHold': {
        if (!state.exists || !state.holdsSeen.has(command.holdId))
          throw new DomainError('not_found', 'hold not found', 'hold_not_found');
        if (!state.holds.has(command.holdId)) return []; // released already
        return [{ type: 'OrderReleased', data: { holdId: command.holdId, releasedAt: at } }];
      }
      case 'RequestReprint': {
        if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
        if (state.status === 'cancelled') throw cancelled();
        const item = itemOf(state, command.orderItemId);
        if (item.stage === 'reprinting') return []; // asked again while it runs
        // only what was printed can be printed again
        if (item.stage === undefined || item.stage === 'ready' || item.stage === 'batched')
          throw stageConflict(item, 'reprinted');
        const { reprintId, orderItemId, reason, note } = command;
        return [
          {
            type: 'OrderItemReprintRequested',
            data: { reprintId, orderItemId, reason, ...(note ? { note } : {}), requestedAt: at },
          },
        ];
      }
      case 'RecordReprint': {
        const item = itemOf(state, command.orderItemId);
        // a reprint gives its verdict once; a retried activity records nothing twice
        if (item.reprintId !== command.reprintId) return [];
        const { reprintId, orderItemId, expected, actual } = command;
        const matches = expected === actual;
        const reason = item.reprintReason ?? 'other';
        return [
          {
            type: 'OrderItemReprinted',
            data: { reprintId, orderItemId, reason, expected, actual, matches, reprintedAt: at },
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
      case 'BatchItem': {
        const item = itemOf(state, command.orderItemId);
        if (item.stage === 'batched' && item.batchId === command.batchId) return []; // claimed already
        const order = producible(state);
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
      case 'UnbatchItem': {
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
      case 'RecordMockup': {
        const { mockup } = command;
        itemOf(state, mockup.orderItemId);
        if (!state.exists || state.mockups.has(mockupKey(mockup))) return [];
        return [{ type: 'MockupRendered', data: { ...mockup, renderedAt: at } }];
      }
      case 'MarkLate': {
        if (!state.exists || state.late || state.status === 'cancelled') return [];
        const due = effectiveShipBy(state, command.at);
        if (!due || due.getTime() >= command.at.getTime() || state.holds.size > 0) return [];
        const unshipped = [...state.items.values()].some(
          (i) => i.stage !== 'shipped' && i.stage !== 'delivered',
        );
        if (!unshipped) return [];
        return [{ type: 'OrderWentLate', data: { shipBy: due.toISOString(), noticedAt: at } }];
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
        mockups: new Map(),
        shipBy: d.shipBy,
        giftMessage: d.giftMessage,
        holds: new Map(),
        holdsSeen: new Set(),
        heldMs: 0,
        shipments: new Map(),
        late: false,
        items: new Map(
          d.items.map((item) => [
            item.orderItemId,
            {
              item,
              status: 'pending' as const,
              barcode: defaultBarcode(item.orderItemId),
              barcodeVersion: 0,
              files: [],
              stage: undefined,
              shipmentId: undefined,
              reprintId: undefined,
              reprintReason: undefined,
              batchId: undefined,
              preflight: undefined,
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
          // the first file puts it on the shop floor; a later one (a new barcode) leaves it where it is
          stage: i.stage ?? 'ready',
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
      case 'OrderItemPrinted':
        return withItem(event.data.orderItemId, (i) => ({
          ...i,
          stage: 'printed',
          batchId: undefined,
        }));
      case 'OrderItemPacked':
        return withItem(event.data.orderItemId, (i) => ({ ...i, stage: 'packed' }));
      case 'OrderShipped': {
        const d = event.data;
        const items = new Map(state.items);
        for (const id of d.orderItemIds) {
          const i = items.get(id);
          if (i) items.set(id, { ...i, stage: 'shipped', shipmentId: d.shipmentId });
        }
        const shipments = new Map(state.shipments);
        shipments.set(d.shipmentId, {
          orderItemIds: d.orderItemIds,
          carrier: d.carrier,
          trackingNumber: d.trackingNumber,
          trackingUrl: d.trackingUrl,
          shippedAt: d.shippedAt,
          delivered: false,
          returned: false,
        });
        return { ...state, items, shipments };
      }
      case 'ShipmentDelivered':
      case 'ShipmentReturned': {
        const shipment = state.shipments.get(event.data.shipmentId);
        if (!shipment) return state;
        const delivered = event.type === 'ShipmentDelivered';
        const shipments = new Map(state.shipments);
        shipments.set(event.data.shipmentId, {
          ...shipment,
          ...(delivered ? { delivered: true } : { returned: true }),
        });
        const items = new Map(state.items);
        for (const id of event.data.orderItemIds) {
          const i = items.get(id);
          if (i) items.set(id, { ...i, stage: delivered ? 'delivered' : 'returned' });
        }
        return { ...state, items, shipments };
      }
      case 'OrderHeld': {
        const holds = new Map(state.holds);
        holds.set(event.data.holdId, { reason: event.data.reason, since: event.data.heldAt });
        return { ...state, holds, holdsSeen: new Set([...state.holdsSeen, event.data.holdId]) };
      }
      case 'OrderReleased': {
        const hold = state.holds.get(event.data.holdId);
        if (!hold) return state;
        const holds = new Map(state.holds);
        holds.delete(event.data.holdId);
        const heldMs =
          state.heldMs + Math.max(0, Date.parse(event.data.releasedAt) - Date.parse(hold.since));
        return { ...state, holds, heldMs };
      }
      case 'OrderItemReprintRequested':
        return withItem(event.data.orderItemId, (i) => ({
          ...i,
          stage: 'reprinting',
          reprintId: event.data.reprintId,
          reprintReason: event.data.reason,
          shipmentId: undefined,
        }));
      case 'OrderItemReprinted':
        // the same file again: back to the start of the shop floor; another file: it waits
        return withItem(event.data.orderItemId, (i) =>
          event.data.matches
            ? { ...i, stage: 'ready', reprintId: undefined, reprintReason: undefined }
            : i,
        );
      case 'OrderWentLate':
        return { ...state, late: true };
      case 'OrderItemBatched':
        return withItem(event.data.orderItemId, (i) => ({
          ...i,
          stage: 'batched',
          batchId: event.data.batchId,
        }));
      case 'OrderItemUnbatched':
        return withItem(event.data.orderItemId, (i) =>
          i.batchId === event.data.batchId && i.stage === 'batched'
            ? { ...i, stage: 'ready', batchId: undefined }
            : i,
        );
      case 'MockupRendered':
        return {
          ...state,
          mockups: new Map([...state.mockups, [mockupKey(event.data), event.data]]),
        };
      case 'PrintFilePreflighted': {
        const { plates, maxInkCoverage, minDpi } = event.data;
        return withItem(event.data.orderItemId, (i) => ({
          ...i,
          preflight: { plates, maxInkCoverage, minDpi },
        }));
      }
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

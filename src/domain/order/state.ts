import { DomainError } from '../shared/decider.ts';
import type { Encrypted } from '../shared/encrypted.ts';
import type { Approver, ApproverRole, Pin } from './approval-events.ts';
import type { BarcodeFormat } from './barcode.ts';
import type {
  ItemFailure,
  OrderEvent,
  OrderItem,
  Preflight,
  PrintSnapshot,
  ProductionStage,
  REPRINT_REASONS,
  STAGE_SOURCES,
} from './events.ts';
import { PRODUCTION_STAGES } from './floor-events.ts';

type Barcode = { format: BarcodeFormat; value: string };
/** The file of a reprint of some records. */
export type ReprintFile = { storageKey: string; sha256: string; pages: number; bytes: number };

type PrintFileFacts = {
  storageKey: string;
  sha256: string;
  pages: number;
  bytes: number;
  barcode: Barcode;
  warnings: string[];
};

export type OrderCommand =
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
  | {
      type: 'CancelOrder';
      reason?: string | undefined;
      /**
       * the operator's: may stop an order on the shop floor (the label's only in its edit window)
       */
      override?: boolean | undefined;
      at: Date;
    }
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
      /** the facility whose key acts: another facility's items are not found */
      facilityId?: string | undefined;
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
      /** the facility whose key acts: another facility's items are not found */
      facilityId?: string | undefined;
      at: Date;
    }
  | { type: 'DeliverShipment'; shipmentId: string; facilityId?: string | undefined; at: Date }
  | {
      type: 'ReturnShipment';
      shipmentId: string;
      reason: string;
      facilityId?: string | undefined;
      at: Date;
    }
  | { type: 'HoldOrder'; holdId: string; reason: string; facilityId?: string | undefined; at: Date }
  | { type: 'ReleaseHold'; holdId: string; facilityId?: string | undefined; at: Date }
  | {
      type: 'RequestReprint';
      reprintId: string;
      orderItemId: string;
      reason: (typeof REPRINT_REASONS)[number];
      note?: string | undefined;
      /** a variable item's records to reprint (1-based, ascending); all when absent */
      records?: number[] | undefined;
      /** the facility whose key acts: another facility's items are not found */
      facilityId?: string | undefined;
      at: Date;
    }
  | {
      type: 'RecordReprint';
      reprintId: string;
      orderItemId: string;
      expected: string;
      actual: string;
      /**
       * a reprint of some records: the file of just those, and whether each record's bytes matched
       */
      records?: { file: ReprintFile; matched: boolean } | undefined;
      at: Date;
    }
  | { type: 'MarkLate'; at: Date }
  | { type: 'CorrectShipTo'; shipTo: Encrypted; country: string; at: Date }
  | { type: 'EraseCustomer'; at: Date }
  | {
      type: 'RouteItem';
      orderItemId: string;
      decision: Routing;
      /**
       * rules route an item once (and again only off a paused facility); an operator at any time
       * before the press
       */
      mode: 'first' | 'reroute' | 'operator';
      /** the facility a re-route moves the item from: it moved since, and nothing is done */
      from?: string | null | undefined;
      at: Date;
    }
  | {
      type: 'BatchItem';
      orderItemId: string;
      batchId: string;
      /** the batch's facility: it takes its own items only */
      facilityId?: string | undefined;
      at: Date;
    }
  | { type: 'UnbatchItem'; orderItemId: string; batchId: string; reason: string; at: Date }
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
      /** the recipient, encrypted, and its country in the clear */
      shipTo: Encrypted | null;
      shipToCountry: string | null;
      /** the owner id of the order's personal-data key; null: sealed with the label's */
      personalDataKey: string | null;
      /** the items whose proofs must be approved, and by whom */
      approval?: ApprovalRules | undefined;
      at: Date;
    }
  | {
      type: 'RecordProof';
      orderItemId: string;
      /** the print file the proof was drawn from: a newer one supersedes it */
      printFileSha256: string;
      pages: { page: number; storageKey: string; sha256: string; width: number; height: number }[];
      at: Date;
    }
  | {
      type: 'DecideProof';
      orderItemId: string;
      decision: 'approve' | 'reject';
      /** the approver, by its place in the order's list of approvers */
      approver: number;
      via: 'link' | 'api';
      /** the proof version decided on, when the decider knows it (a link names it) */
      version?: number | undefined;
      comment?: string | undefined;
      pins?: Pin[] | undefined;
      at: Date;
    }
  | { type: 'WaiveApproval'; orderItemId: string; by: string; reason: string; at: Date }
  /**
   * reminds the approvers of proofs waiting past their reminder time, expires those past their
   * expiry
   */
  | { type: 'WatchApprovals'; at: Date }
  | {
      type: 'ReviseItem';
      orderItemId: string;
      projectId: string;
      projectVersion: number;
      design: OrderItem['design'];
      at: Date;
    }
  | {
      type: 'RecordMockup';
      mockup: Omit<Extract<OrderEvent, { type: 'MockupRendered' }>['data'], 'renderedAt'>;
      at: Date;
    };

/** A routing decision: where an item is made (null: nowhere yet), on which day, and why. */
export type Routing = Omit<
  Extract<OrderEvent, { type: 'ItemRouted' }>['data'],
  'orderItemId' | 'routedAt' | 'from'
>;

/** Whose approval an order's items wait for, as the policy said when it came in. */
export interface ApprovalRules {
  orderItemIds: string[];
  approvers: Approver[];
  finalApprover?: ApproverRole | undefined;
  remindAfterHours: number;
  expireAfterHours?: number | undefined;
}

/** Where an item's proof stands; none for an item that needs no approval. */
export interface ApprovalState {
  approvers: Approver[];
  finalApprover: ApproverRole | undefined;
  /** waiting for its proof to be drawn, for the approvers, for a revision; or let go */
  status: 'awaiting_proof' | 'awaiting_approval' | 'rejected' | 'approved' | 'waived' | 'expired';
  remindAfterHours: number;
  expireAfterHours: number | undefined;
  /** the approvers were reminded of the latest version */
  reminded: boolean;
  /** the latest proof's version (0 before the first) and the print file it shows */
  version: number;
  proofOf: string | undefined;
  /** approvers (by place in the list) who approved the latest version */
  approvedBy: number[];
  /** since when it waits for the approvers (reminders and expiry count from here) */
  since: string | undefined;
}

export interface ItemState {
  item: OrderItem;
  status: 'pending' | 'ready' | 'failed';
  reason?: string;
  /** the barcode the next print file carries */
  barcode: Barcode;
  /**
   * how many barcode updates and revisions there were: the version a new render of the
   * item renders (an older render finds itself superseded and records nothing)
   */
  barcodeVersion: number;
  files: PrintFileFacts[];
  /** where it is on the shop floor; none until its first print file is made */
  stage: ProductionStage | undefined;
  /** the shipment it left in (until a reprint or a return) */
  shipmentId: string | undefined;
  /** the reprint under way, while the item is reprinting */
  reprintId: string | undefined;
  reprintReason: (typeof REPRINT_REASONS)[number] | undefined;
  /** the records the reprint under way makes again (a variable item's; all when undefined) */
  reprintRecords: number[] | undefined;
  /** the file of some records a reprint made: what the shop floor prints until it is printed */
  reprintFile: ReprintFile | undefined;
  /** the press run it is in, while it is batched */
  batchId: string | undefined;
  /** what the preflight of its latest print file found: the plates, coverage and resolution */
  preflight: { plates: string[]; maxInkCoverage: number; minDpi: number | undefined } | undefined;
  approval: ApprovalState | undefined;
  /** how many designs it has had (1: as sold; one more per revision) */
  designVersion: number;
  /** a revision came after its latest print file: the file is to be made again */
  revisedSinceFile: boolean;
  /** where it is made: undefined until routed, null while no facility can make it */
  facilityId: string | null | undefined;
  /** the working day whose capacity it took there */
  routedDay: string | null | undefined;
}

export interface ShipmentState {
  orderItemIds: string[];
  carrier: string;
  trackingNumber: string;
  trackingUrl: string | undefined;
  shippedAt: string;
  /** the facility it left from; undefined: the label's own shop floor */
  facilityId: string | undefined;
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
      /** the recipient's address, encrypted (null: none given), and its country */
      shipTo: Encrypted | null;
      shipToCountry: string | null;
      /** the owner id of the key the customer's data is sealed with; null: the label's */
      personalDataKey: string | null;
      /** the customer's data was erased (its key destroyed) */
      customerErased: boolean;
      /** the latest ship-by time a facility's working days gave an item of it */
      facilityShipBy: string | undefined;
      /** open holds: while one is open, nothing of the order is batched, printed or shipped */
      holds: ReadonlyMap<string, { reason: string; since: string }>;
      /** holds ever placed, released or not (a released one is not placed again) */
      holdsSeen: ReadonlySet<string>;
      /** how long the order has been on hold, in milliseconds (closed holds) */
      heldMs: number;
      shipments: ReadonlyMap<string, ShipmentState>;
      /** the ship-by time went past unshipped, and that is recorded */
      late: boolean;
      /**
       * when the last item that waited for approval was approved (its ship-by clock starts then)
       */
      approvedAt: string | undefined;
    };

/** The production stages in their order; reprinting and returned stand apart. */
export const STAGE_RANK: Partial<Record<ProductionStage, number>> = {
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

export const cancelled = () =>
  new DomainError('conflict', 'the order is cancelled', 'order_cancelled');
export const onHold = (holds: ReadonlyMap<string, { reason: string }>) =>
  new DomainError(
    'conflict',
    `the order is on hold (${[...holds.values()].map((h) => h.reason).join('; ')}): release it first`,
    'order_on_hold',
  );

/** The order as production may touch it: recorded, not cancelled, not on hold. */
export function producible(state: OrderState) {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  if (state.status === 'cancelled') throw cancelled();
  if (state.holds.size > 0) throw onHold(state.holds);
  return state;
}

/** Stages past the edit window: an item there is on the press or beyond. */
const PRODUCED = new Set<string>(PRODUCTION_STAGES.filter((s) => s !== 'ready'));

/**
 * The first item of the order that closed its edit window (batched, printed or beyond),
 * if any: until then the order may be revised or cancelled by the shop.
 */
export function closedBy(state: Recorded) {
  return [...state.items.values()].find((i) => i.stage !== undefined && PRODUCED.has(i.stage));
}

export const editWindowClosed = (item: ItemState, wanted: string) =>
  new DomainError(
    'conflict',
    `the order can no longer be ${wanted}: item ${item.item.itemId} is ${item.stage}`,
    'edit_window_closed',
  );

/** The item has left the shop: shipped, or delivered since. */
export const hasShipped = (item: ItemState) =>
  item.stage === 'shipped' || item.stage === 'delivered';

/**
 * Production may take the item: it needs no approval, or its latest proof is approved or waived.
 */
export const approvedForProduction = (item: ItemState) =>
  !item.approval || item.approval.status === 'approved' || item.approval.status === 'waived';

/**
 * A new print file of an item that needs approval: its proof is to be drawn and approved anew
 * (unless waived).
 */
export const proofDue = (a: ApprovalState): ApprovalState =>
  a.status === 'waived' || a.status === 'expired'
    ? a
    : { ...a, status: 'awaiting_proof', approvedBy: [], since: undefined, reminded: false };

export const awaitingApproval = (item: ItemState) =>
  new DomainError(
    'conflict',
    `item ${item.item.itemId} is awaiting approval of its proof (${item.approval?.status ?? ''}): it cannot go to production yet`,
    'awaiting_approval',
  );

export const stageConflict = (item: ItemState, wanted: string) =>
  new DomainError(
    'conflict',
    `item ${item.item.itemId} is ${item.stage ?? 'not rendered yet'}; it cannot be ${wanted} now`,
    'stage_conflict',
  );

/** When the order must be shipped by now: its ship-by time moved on by its time on hold. */
export function effectiveShipBy(state: Extract<OrderState, { exists: true }>, now: Date) {
  if (state.shipBy === null) return undefined;
  const items = [...state.items.values()];
  // no clock while a proof waits; after the approvals, it starts from the last one
  if (!items.every(approvedForProduction)) return undefined;
  const counted = state.approvedAt
    ? Date.parse(state.approvedAt) + Date.parse(state.shipBy) - Date.parse(state.receivedAt)
    : Date.parse(state.shipBy);
  // counted on its facilities' working days, where its items were routed
  const shipBy = Math.max(counted, state.facilityShipBy ? Date.parse(state.facilityShipBy) : 0);
  const open = [...state.holds.values()].reduce(
    (ms, h) => ms + Math.max(0, now.getTime() - Date.parse(h.since)),
    0,
  );
  return new Date(shipBy + state.heldMs + open);
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

export function itemOf(state: OrderState, orderItemId: string, facilityId?: string) {
  const item = state.exists ? state.items.get(orderItemId) : undefined;
  // a facility's key finds its own items only
  if (!state.exists || !item || (facilityId !== undefined && item.facilityId !== facilityId))
    throw new DomainError('not_found', 'order item not found', 'order_item_not_found');
  return item;
}

/** The order as a facility's key sees it: one with none of its items is not found. */
export function orderAt(state: OrderState, facilityId: string | undefined) {
  if (
    !state.exists ||
    (facilityId !== undefined &&
      ![...state.items.values()].some((i) => i.facilityId === facilityId))
  )
    throw new DomainError('not_found', 'order not found', 'order_not_found');
  return state;
}

/** The order recorded (after OrderReceived): what every event but the first changes. */
export type Recorded = Extract<OrderState, { exists: true }>;

/** The order with one item changed; unchanged when there is no such item. */
export function withItem(
  state: Recorded,
  id: string,
  change: (i: ItemState) => ItemState,
): OrderState {
  const current = state.items.get(id);
  if (!current) return state;
  const items = new Map(state.items);
  items.set(id, change(current));
  return { ...state, items };
}

/** One command of the order, by its type. */
export type Command<T extends OrderCommand['type']> = Extract<OrderCommand, { type: T }>;
/** One event of the order, by its type. */
export type Event<T extends OrderEvent['type']> = Extract<OrderEvent, { type: T }>;

/** A handler per command type: the decision of that command alone. */
export type DecideHandlers = {
  [T in OrderCommand['type']]?: (
    command: Command<T>,
    state: OrderState,
    at: string,
  ) => OrderEvent[];
};
/** How each event after the first changes the recorded order (events not named change nothing). */
export type EvolveHandlers = {
  [T in Exclude<OrderEvent['type'], 'OrderReceived'>]?: (
    state: Recorded,
    event: Event<T>,
  ) => OrderState;
};

/** The file the shop floor prints of an item: a reprint's file of some records, else its latest. */
export function fileToPrint(
  item: ItemState,
): { storageKey: string; sha256: string; pages: number } | undefined {
  return item.reprintFile ?? item.files.at(-1);
}

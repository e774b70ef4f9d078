import { createHash } from 'node:crypto';
import { z } from 'zod';
import { printAreaSchema } from '../product/configuration.ts';
import { storedDesignSchema as designSchema } from '../project/design.ts';
import { encryptedSchema } from '../shared/encrypted.ts';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';
import * as approval from './approval-events.ts';
import { barcodeFormatSchema } from './barcode.ts';
import * as floor from './floor-events.ts';
import * as replay from './replay-events.ts';
import * as routing from './routing-events.ts';

export * from './approval-events.ts';
export * from './floor-events.ts';
export * from './replay-events.ts';
export * from './routing-events.ts';

/** The shop's order reference: one limit wherever it is accepted or read back. */
export const ORDER_ID_MAX = 128;
export const orderIdSchema = z.string().min(1).max(ORDER_ID_MAX);

export const barcodeSchema = z
  .object({ format: barcodeFormatSchema, value: z.string() })
  .meta({ id: 'Barcode' });

/** An order item as sold: the design and product facts copied at notification time, so
 * that its print file can be rendered again from the order's own events, bit for bit. */
export const orderItemSchema = z.object({
  orderItemId: z.uuid(),
  itemId: z.string(),
  projectId: z.uuid(),
  cartItemId: z.uuid().optional(),
  quantity: z.number().int(),
  sku: z.string(),
  supplier: z.string(),
  printMethod: z.string(),
  printColors: z.number().int(),
  printAreas: z.array(printAreaSchema),
  design: designSchema,
  /**
   * a variable item: one record per row of this data set (`quantity` copies of each),
   * named by its id and the sha256 of its bytes; its rows are never in an event. The
   * label's images are those its first `labelImagesAt` image events named.
   */
  dataset: z
    .object({
      datasetId: z.uuid(),
      sha256: z.string(),
      rows: z.number().int(),
      fields: z.array(z.string()),
      storageKey: z.string(),
      labelImagesAt: z.number().int(),
    })
    .optional(),
});
export type OrderItem = z.infer<typeof orderItemSchema>;
export type ItemDataset = NonNullable<OrderItem['dataset']>;

const DEFAULT_RENDER_MINUTES_BEFORE_V2 = 30;

/**
 * How an order's print files are made, as it was when the order came in, so they can be
 * made again bit for bit whatever the label or the service changes later: the renderer
 * (1: the first, RGB in PDF 1.7; 2: PDF/X-4 in CMYK), the output profile (by content),
 * crop marks, the coverage limit its preflight checks, and which print methods print
 * with inks (one spot colour per ink).
 */
export const printSnapshotSchema = z.object({
  renderer: z.number().int().min(1),
  outputProfile: z.object({ sha256: z.string(), description: z.string() }),
  cropMarks: z.boolean(),
  maxInkCoverage: z.number(),
  inkMethods: z.array(z.string()),
});
export type PrintSnapshot = z.infer<typeof printSnapshotSchema>;
/** The renderer of new orders. */
export const CURRENT_RENDERER = 2;

/**
 * v2 records when the order is due to be rendered (the label's deadline at receipt); a
 * v1 order, received before deadlines existed, was due 30 minutes after its receipt.
 * v3 records how its print files are made; a v1 or v2 order was made by the first
 * renderer, which took no output profile, marks or inks (the fields are inert for it).
 * v4 records when it must be shipped (the label's ship-by deadline at receipt) and the
 * customer's gift message (encrypted like the customer); an order received before has
 * neither: no ship-by deadline, no gift message.
 * v5 lets an item be variable (`dataset`); every item of an earlier order is one record.
 * v6 records the recipient (`shipTo`, encrypted; its country in the clear, for routing)
 * and seals the customer's data with a key of the order's own (`personalDataKey`, the
 * owner id of that key), so one customer is erased without their label; an earlier
 * order has no recipient and its customer's data is sealed with the label's key (null).
 */
export const OrderReceived = defineEvent(
  'OrderReceived',
  6,
  z.object({
    orderId: z.string(),
    labelId: z.uuid(),
    /** sha256 of the notification body: the same order id with another body is a conflict */
    bodyHash: z.string(),
    source: z.object({
      channel: z.enum(['shop', 'fulfillment']),
      integrationId: z.uuid().optional(),
    }),
    customer: encryptedSchema.nullable(),
    items: z.array(orderItemSchema),
    receivedAt: z.iso.datetime(),
    renderDueAt: z.iso.datetime(),
    print: printSnapshotSchema,
    shipBy: z.iso.datetime().nullable(),
    giftMessage: encryptedSchema.nullable(),
    shipTo: encryptedSchema.nullable(),
    shipToCountry: z.string().nullable(),
    personalDataKey: z.uuid().nullable(),
  }),
  {
    5: (data) => ({ ...data, shipTo: null, shipToCountry: null, personalDataKey: null }),
    // no item of a v4 order has a data set: its items read as they always did
    4: (data) => data,
    3: (data) => ({ ...data, shipBy: null, giftMessage: null }),
    2: (data) => ({
      ...data,
      print: {
        renderer: 1,
        outputProfile: { sha256: '', description: '' },
        cropMarks: false,
        maxInkCoverage: 300,
        inkMethods: [],
      },
    }),
    1: (data) => ({
      ...data,
      renderDueAt: new Date(
        Date.parse(String(data.receivedAt)) + DEFAULT_RENDER_MINUTES_BEFORE_V2 * 60_000,
      ).toISOString(),
    }),
  },
);
export const OrderRenderingStarted = defineEvent(
  'OrderRenderingStarted',
  1,
  z.object({ startedAt: z.iso.datetime() }),
);
export const PrintFileGenerated = defineEvent(
  'PrintFileGenerated',
  1,
  z.object({
    orderItemId: z.uuid(),
    storageKey: z.string(),
    sha256: z.string(),
    pages: z.number().int(),
    bytes: z.number().int(),
    barcode: barcodeSchema,
    images: z.array(
      z.object({ area: z.string(), layer: z.number().int(), effectiveDpi: z.number() }),
    ),
    warnings: z.array(z.string()),
    generatedAt: z.iso.datetime(),
  }),
);
/** Why an item could not be rendered, in a few words (for lists and metrics). */
export const ITEM_FAILURES = [
  'image_missing',
  'image_unreadable',
  'layout',
  'barcode',
  'timeout',
  'preflight',
  'profile_missing',
  'unknown',
] as const;
export type ItemFailure = (typeof ITEM_FAILURES)[number];

/** v2 adds `kind`; a v1 failure, recorded before kinds existed, is of kind unknown. */
export const OrderItemFailed = defineEvent(
  'OrderItemFailed',
  2,
  z.object({
    orderItemId: z.uuid(),
    reason: z.string(),
    kind: z.enum(ITEM_FAILURES),
    failedAt: z.iso.datetime(),
  }),
  { 1: (data) => ({ ...data, kind: 'unknown' }) },
);
/** A print file's preflight: each rule's result (the service's own checks, after rendering). */
/** A print file's preflight report: the event's and the order view's. */
export const preflightReportSchema = z.object({
  passed: z.boolean(),
  rules: z.array(
    z.object({
      rule: z.string(),
      severity: z.enum(['warning', 'failure']),
      result: z.enum(['pass', 'warning', 'failure']),
      detail: z.string(),
    }),
  ),
  plates: z.array(z.string()),
  maxInkCoverage: z.number(),
  minDpi: z.number().optional(),
});

export const PrintFilePreflighted = defineEvent(
  'PrintFilePreflighted',
  1,
  z.object({
    orderItemId: z.uuid(),
    sha256: z.string(),
    ...preflightReportSchema.shape,
    checkedAt: z.iso.datetime(),
  }),
);
export type Preflight = Omit<
  EventOf<typeof PrintFilePreflighted>['data'],
  'orderItemId' | 'sha256' | 'checkedAt'
>;

export const OrderReady = defineEvent('OrderReady', 1, z.object({ readyAt: z.iso.datetime() }));
export const OrderFailed = defineEvent(
  'OrderFailed',
  1,
  z.object({ reason: z.string(), failedAt: z.iso.datetime() }),
);
export const OrderItemBarcodeUpdated = defineEvent(
  'OrderItemBarcodeUpdated',
  1,
  z.object({ orderItemId: z.uuid(), barcode: barcodeSchema, updatedAt: z.iso.datetime() }),
);
export const BarcodeRegenerated = defineEvent(
  'BarcodeRegenerated',
  1,
  z.object({ orderItemId: z.uuid(), barcode: barcodeSchema, regeneratedAt: z.iso.datetime() }),
);
/** Someone (an admin, the operator) asked for the failed items to be rendered again. */
export const OrderRetryRequested = defineEvent(
  'OrderRetryRequested',
  1,
  z.object({
    retryId: z.uuid(),
    orderItemIds: z.array(z.uuid()),
    requestedAt: z.iso.datetime(),
  }),
);
/** The order is not to be printed: no further print files are made for it. */
export const OrderCancelled = defineEvent(
  'OrderCancelled',
  1,
  z.object({ reason: z.string().optional(), cancelledAt: z.iso.datetime() }),
);
/** The order passed its render deadline unfinished (recorded once, when noticed). */
export const OrderWentOverdue = defineEvent(
  'OrderWentOverdue',
  1,
  z.object({ renderDueAt: z.iso.datetime(), noticedAt: z.iso.datetime() }),
);

export type OrderEvent =
  | EventOf<typeof floor.MockupRendered>
  | EventOf<typeof OrderReceived>
  | EventOf<typeof OrderRenderingStarted>
  | EventOf<typeof PrintFileGenerated>
  | EventOf<typeof OrderItemFailed>
  | EventOf<typeof OrderReady>
  | EventOf<typeof OrderFailed>
  | EventOf<typeof OrderItemBarcodeUpdated>
  | EventOf<typeof BarcodeRegenerated>
  | EventOf<typeof PrintFilePreflighted>
  | EventOf<typeof OrderRetryRequested>
  | EventOf<typeof OrderCancelled>
  | EventOf<typeof OrderWentOverdue>
  | EventOf<typeof replay.OrderReplayRequested>
  | EventOf<typeof replay.OrderReplayed>
  | EventOf<typeof replay.PrintFileMismatchDetected>
  | EventOf<typeof floor.OrderItemPrinted>
  | EventOf<typeof floor.OrderItemPacked>
  | EventOf<typeof floor.OrderShipped>
  | EventOf<typeof floor.ShipmentDelivered>
  | EventOf<typeof floor.ShipmentReturned>
  | EventOf<typeof floor.OrderHeld>
  | EventOf<typeof floor.OrderReleased>
  | EventOf<typeof floor.OrderItemReprintRequested>
  | EventOf<typeof floor.OrderItemReprinted>
  | EventOf<typeof floor.OrderWentLate>
  | EventOf<typeof floor.OrderItemBatched>
  | EventOf<typeof floor.OrderItemUnbatched>
  | EventOf<typeof approval.ApprovalRequired>
  | EventOf<typeof approval.ProofMade>
  | EventOf<typeof approval.ProofApproved>
  | EventOf<typeof approval.ProofRejected>
  | EventOf<typeof approval.ApprovalWaived>
  | EventOf<typeof approval.ItemRevised>
  | EventOf<typeof approval.OrderApproved>
  | EventOf<typeof approval.ProofReminded>
  | EventOf<typeof approval.ProofExpired>
  | EventOf<typeof routing.ShipToCorrected>
  | EventOf<typeof routing.CustomerErased>
  | EventOf<typeof routing.ItemRouted>;

export const orderEvents = new EventRegistry<OrderEvent>([
  OrderReceived,
  OrderRenderingStarted,
  PrintFileGenerated,
  OrderItemFailed,
  OrderReady,
  OrderFailed,
  OrderItemBarcodeUpdated,
  BarcodeRegenerated,
  PrintFilePreflighted,
  OrderRetryRequested,
  OrderCancelled,
  OrderWentOverdue,
  replay.OrderReplayRequested,
  replay.OrderReplayed,
  replay.PrintFileMismatchDetected,
  floor.OrderItemPrinted,
  floor.OrderItemPacked,
  floor.OrderShipped,
  floor.ShipmentDelivered,
  floor.ShipmentReturned,
  floor.OrderHeld,
  floor.OrderReleased,
  floor.OrderItemReprintRequested,
  floor.OrderItemReprinted,
  floor.OrderWentLate,
  floor.OrderItemBatched,
  floor.OrderItemUnbatched,
  floor.MockupRendered,
  approval.ApprovalRequired,
  approval.ProofMade,
  approval.ProofApproved,
  approval.ProofRejected,
  approval.ApprovalWaived,
  approval.ItemRevised,
  approval.OrderApproved,
  approval.ProofReminded,
  approval.ProofExpired,
  routing.ShipToCorrected,
  routing.CustomerErased,
  routing.ItemRouted,
]);

const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 40);
/** The shop's order reference is hashed into the stream name (any characters allowed). */
export const orderStream = (labelId: string, orderId: string) =>
  `Order-${labelId}-${digest(orderId)}`;
/** The label an order stream belongs to (its name holds it). */
export const labelOfOrderStream = (stream: string) =>
  stream.slice('Order-'.length, 'Order-'.length + 36);

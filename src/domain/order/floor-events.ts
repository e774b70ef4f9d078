import { z } from 'zod';
import { defineEvent } from '../shared/events.ts';

/*
 * The order's events on the shop floor: stages, press runs, shipments, holds, reprints, lateness,
 * mockups.
 */

/** Where an item is on the shop floor, once its print file is made. */
export const PRODUCTION_STAGES = [
  'ready',
  'batched',
  'printed',
  'packed',
  'shipped',
  'delivered',
  'reprinting',
  'returned',
] as const;
export type ProductionStage = (typeof PRODUCTION_STAGES)[number];

/** Who reported a stage: a scan at a station, an API call, a press run's sheet. */
export const STAGE_SOURCES = ['scan', 'api', 'batch'] as const;
const station = z.string().max(100).optional();

/** The item came off the press. */
export const OrderItemPrinted = defineEvent(
  'OrderItemPrinted',
  1,
  z.object({
    orderItemId: z.uuid(),
    via: z.enum(STAGE_SOURCES),
    station,
    batchId: z.uuid().optional(),
    printedAt: z.iso.datetime(),
  }),
);
/** The item was taken into a press run: it is printed with the batch's sheets. */
export const OrderItemBatched = defineEvent(
  'OrderItemBatched',
  1,
  z.object({ orderItemId: z.uuid(), batchId: z.uuid(), batchedAt: z.iso.datetime() }),
);
/** The press run let the item go (cancelled, or it could not be imposed): ready again. */
export const OrderItemUnbatched = defineEvent(
  'OrderItemUnbatched',
  1,
  z.object({
    orderItemId: z.uuid(),
    batchId: z.uuid(),
    reason: z.string(),
    unbatchedAt: z.iso.datetime(),
  }),
);
/** The item was packed for shipping. */
export const OrderItemPacked = defineEvent(
  'OrderItemPacked',
  1,
  z.object({
    orderItemId: z.uuid(),
    via: z.enum(STAGE_SOURCES),
    station,
    packedAt: z.iso.datetime(),
  }),
);
/**
 * Items of the order left in one parcel, with the carrier's tracking. v2 names the
 * facility it left from (absent: the label's own shop floor, as every v1 shipment).
 */
export const OrderShipped = defineEvent(
  'OrderShipped',
  2,
  z.object({
    shipmentId: z.uuid(),
    facilityId: z.uuid().optional(),
    orderItemIds: z.array(z.uuid()).min(1),
    carrier: z.string(),
    trackingNumber: z.string(),
    trackingUrl: z.string().optional(),
    shippedAt: z.iso.datetime(),
  }),
  { 1: (data) => data },
);
/** The carrier delivered the shipment (its items, as they were shipped in it). */
export const ShipmentDelivered = defineEvent(
  'ShipmentDelivered',
  1,
  z.object({
    shipmentId: z.uuid(),
    orderItemIds: z.array(z.uuid()),
    deliveredAt: z.iso.datetime(),
  }),
);
/** The shipment came back; its items are returned (a reprint sends them again). */
export const ShipmentReturned = defineEvent(
  'ShipmentReturned',
  1,
  z.object({
    shipmentId: z.uuid(),
    orderItemIds: z.array(z.uuid()),
    reason: z.string(),
    returnedAt: z.iso.datetime(),
  }),
);
/** The order is held: nothing of it is batched, printed or shipped until it is released. */
export const OrderHeld = defineEvent(
  'OrderHeld',
  1,
  z.object({ holdId: z.uuid(), reason: z.string(), heldAt: z.iso.datetime() }),
);
export const OrderReleased = defineEvent(
  'OrderReleased',
  1,
  z.object({ holdId: z.uuid(), releasedAt: z.iso.datetime() }),
);
export const REPRINT_REASONS = ['misprint', 'damaged', 'lost', 'other'] as const;
/** The item is to be printed again (its print file rendered again and verified first). */
/** v2: a variable item's reprint may name `records` (all of it when absent, as in v1). */
export const OrderItemReprintRequested = defineEvent(
  'OrderItemReprintRequested',
  2,
  z.object({
    reprintId: z.uuid(),
    orderItemId: z.uuid(),
    reason: z.enum(REPRINT_REASONS),
    note: z.string().optional(),
    records: z.array(z.number().int()).optional(),
    requestedAt: z.iso.datetime(),
  }),
  { 1: (data) => data },
);
/** The reprint's print file was rendered again and compared with the recorded one. */
/**
 * v2: a reprint of some records of a variable item names them and the file of just those
 * records it made (`file`), whose records' bytes were compared with the recorded file's
 * (`matches` holds only when the whole file and each of them matched); a v1 reprint
 * reprinted the whole recorded file.
 */
export const OrderItemReprinted = defineEvent(
  'OrderItemReprinted',
  2,
  z.object({
    reprintId: z.uuid(),
    orderItemId: z.uuid(),
    reason: z.enum(REPRINT_REASONS),
    expected: z.string(),
    actual: z.string(),
    matches: z.boolean(),
    records: z.array(z.number().int()).optional(),
    file: z
      .object({
        storageKey: z.string(),
        sha256: z.string(),
        pages: z.number().int(),
        bytes: z.number().int(),
      })
      .optional(),
    reprintedAt: z.iso.datetime(),
  }),
  { 1: (data) => data },
);
/** The order was not shipped by its ship-by time (hold time not counted); recorded once. */
export const OrderWentLate = defineEvent(
  'OrderWentLate',
  1,
  z.object({ shipBy: z.iso.datetime(), noticedAt: z.iso.datetime() }),
);

/**
 * A mockup of an item drawn from its print file on a template's photo (after the print
 * file, at the lowest priority). The template's revision is named: a template changed
 * later draws new mockups and leaves this one as it is.
 */
export const MockupRendered = defineEvent(
  'MockupRendered',
  1,
  z.object({
    /** the order's label (also in its stream's name): read models of mockups need no order refs */
    labelId: z.uuid(),
    orderItemId: z.uuid(),
    templateId: z.string(),
    templateRevision: z.number().int(),
    /** the template's photo and masks (sha256 in the image store): kept while the order is */
    templateImages: z.array(z.string()),
    /** the print file it shows */
    printFileSha256: z.string(),
    storageKey: z.string(),
    sha256: z.string(),
    bytes: z.number().int(),
    format: z.enum(['png', 'jpeg']),
    width: z.number().int(),
    height: z.number().int(),
    renderedAt: z.iso.datetime(),
  }),
);

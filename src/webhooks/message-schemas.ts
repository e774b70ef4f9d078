import { z } from 'zod';
import {
  APPROVER_ROLES,
  barcodeSchema,
  ITEM_FAILURES,
  pinSchema,
  REPRINT_REASONS,
  ROUTING_RULES,
} from '../domain/order/events.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../domain/shop-integration/events.ts';

/**
 * What each order message says, as a schema: the webhook bodies and the pull feed's
 * entries are these, and the OpenAPI document's `webhooks` section is made of them, so
 * a receiver can type every payload. A test holds the messages the service makes to
 * them (messages.ts).
 */
const instant = z.iso.datetime();
const sequence = z
  .number()
  .int()
  .min(1)
  .max(2_147_483_647)
  .describe("the order's own count: each of its messages one more than the one before");

const base = {
  orderId: z.string().describe("the shop's order id"),
  sequence,
  orderItemIds: z.array(z.uuid()).describe('the order items the message is about'),
};

/**
 * A message type's body as a webhook POSTs it (`{ type, timestamp, data }`, its id in the
 * webhook-id header) and as the events feed lists it (the same with that `id`).
 */
const schemasOf = <T extends WebhookEventType, D extends z.ZodObject>(
  type: T,
  id: string,
  description: string,
  data: D,
) => {
  const body = z
    .object({
      type: z.literal(type),
      timestamp: instant.describe('when it happened'),
      data: data.meta({ id: `${id}Data` }),
    })
    .meta({ id, description });
  const entry = body
    .extend({
      id: z
        .string()
        .describe('msg_ and the id of the event it tells of: the webhook-id of its deliveries'),
    })
    .meta({ id: `${id}Entry`, description: `${description} (in the events feed)` });
  return { body, entry };
};

/** A message of an order: its id, its sequence and the items it is about, then `data`. */
const message = <T extends WebhookEventType, D extends z.ZodRawShape>(
  type: T,
  id: string,
  description: string,
  data: D,
) => schemasOf(type, id, description, z.object({ ...base, ...data }));

/**
 * A message of the label rather than of an order (the audit log's daily head): no order
 * id, sequence or items; sent to every shop of the label that takes its type.
 */
const labelMessage = <T extends WebhookEventType, D extends z.ZodRawShape>(
  type: T,
  id: string,
  description: string,
  data: D,
) => schemasOf(type, id, description, z.object(data));

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const proofVersion = z.number().int().min(1).max(100_000);
/** an approver, and (where the message asks them) their link to the proof page */
const approverLink = z.object({
  approver: z.number().int().min(0).max(100).describe('its place in the list of approvers'),
  role: z.enum(APPROVER_ROLES),
  name: z.string().optional(),
  url: z
    .string()
    .optional()
    .describe('their link to the proof page: signed, expiring, for this proof version only'),
});
const decidedBy = z.object({
  role: z.enum(APPROVER_ROLES),
  name: z.string().optional(),
  via: z.enum(['link', 'api']),
});

export const MESSAGE_SCHEMAS = {
  'order.received': message('order.received', 'OrderReceivedMessage', 'the order was recorded', {
    items: z.array(
      z
        .object({
          itemId: z.string(),
          orderItemId: z.uuid(),
          sku: z.string(),
          quantity: z.number().int().min(1).max(1_000_000),
        })
        .meta({ id: 'ReceivedItem' }),
    ),
    renderDueAt: instant.describe('when its print files are due'),
  }),
  'order.item.print_ready': message(
    'order.item.print_ready',
    'PrintReadyMessage',
    "an item's print file is stored",
    {
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      bytes: z.number().int().min(0).max(1_000_000_000_000),
      pages: z.number().int().min(1).max(1000),
      download: z.string().describe('the path of the print file (GET with the admin key)'),
      facilityId: z.uuid().optional().describe('the facility that makes the item, once routed'),
    },
  ),
  'order.item.mockup_ready': message(
    'order.item.mockup_ready',
    'MockupReadyMessage',
    "a mockup of an item (its print file on a template's photo) is stored",
    {
      templateId: z.string().describe('the mockup template it is drawn on'),
      templateRevision: z.number().int().min(1).max(2_147_483_647),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      format: z.enum(['png', 'jpeg']),
      width: z.number().int().min(1).max(3000),
      height: z.number().int().min(1).max(100_000),
      download: z.string().describe('the path of the image (GET with the admin key)'),
    },
  ),
  'order.item.failed': message(
    'order.item.failed',
    'ItemFailedMessage',
    'an item cannot be rendered as it is (retry the order once the cause is fixed)',
    {
      reason: z.enum(ITEM_FAILURES).describe('the kind of failure'),
      detail: z.string().describe('what failed, in words'),
    },
  ),
  'order.ready': message('order.ready', 'OrderReadyMessage', 'every item has its print file', {}),
  'order.failed': message(
    'order.failed',
    'OrderFailedMessage',
    'the order ended with failed items',
    {
      detail: z.string(),
    },
  ),
  'order.overdue': message(
    'order.overdue',
    'OrderOverdueMessage',
    'the order passed its render deadline unfinished (told once)',
    { renderDueAt: instant },
  ),
  'order.cancelled': message(
    'order.cancelled',
    'OrderCancelledMessage',
    'the order will not be printed',
    {
      reason: z.string().optional(),
    },
  ),
  'order.barcode_regenerated': message(
    'order.barcode_regenerated',
    'BarcodeRegeneratedMessage',
    "an item's barcode was set and its print file made again",
    {
      barcode: barcodeSchema,
    },
  ),
  'order.replayed': message(
    'order.replayed',
    'OrderReplayedMessage',
    'the print files were rendered again from the recorded events and compared',
    {
      replayId: z.string().describe('the replay, as answered when it was asked for'),
      matches: z.boolean().describe('every file came out byte for byte the same'),
      results: z.array(
        z.object({ orderItemId: z.uuid(), matches: z.boolean() }).meta({ id: 'ReplayResult' }),
      ),
    },
  ),
  'order.item.printed': message(
    'order.item.printed',
    'ItemPrintedMessage',
    'the item came off the press',
    {
      station: z.string().optional().describe('where it was scanned'),
      facilityId: z.uuid().optional().describe('the facility that makes the item, once routed'),
    },
  ),
  'order.item.packed': message('order.item.packed', 'ItemPackedMessage', 'the item was packed', {
    station: z.string().optional().describe('where it was scanned'),
    facilityId: z.uuid().optional().describe('the facility that makes the item, once routed'),
  }),
  'order.item.routed': message(
    'order.item.routed',
    'ItemRoutedMessage',
    'where the item is made: its facility (none: no facility can make it, it waits as unroutable), the working day whose capacity it takes, and the rule that decided',
    {
      facilityId: z.uuid().nullable(),
      day: z.iso.date().nullable(),
      rule: z.enum(ROUTING_RULES),
      reason: z.string().describe('the decision in words, every facility with its verdict'),
    },
  ),
  'order.shipped': message(
    'order.shipped',
    'OrderShippedMessage',
    "items left in a parcel (orderItemIds), with the carrier's tracking",
    {
      shipmentId: z.uuid(),
      facilityId: z.uuid().optional().describe('the facility it left from'),
      carrier: z.string(),
      trackingNumber: z.string(),
      trackingUrl: z.string().optional(),
    },
  ),
  'order.delivered': message(
    'order.delivered',
    'OrderDeliveredMessage',
    'the carrier delivered a shipment',
    { shipmentId: z.uuid() },
  ),
  'order.returned': message('order.returned', 'OrderReturnedMessage', 'a shipment came back', {
    shipmentId: z.uuid(),
    reason: z.string(),
  }),
  'order.on_hold': message(
    'order.on_hold',
    'OrderOnHoldMessage',
    'the order is held: nothing of it is printed or shipped until it is released',
    { holdId: z.uuid(), reason: z.string() },
  ),
  'order.released': message(
    'order.released',
    'OrderReleasedMessage',
    'a hold of the order was released',
    { holdId: z.uuid() },
  ),
  'order.item.reprinted': message(
    'order.item.reprinted',
    'ItemReprintedMessage',
    'the item is printed again: its print file rendered again and compared with the first (matches: byte for byte the same)',
    {
      reprintId: z.uuid(),
      reason: z.enum(REPRINT_REASONS),
      matches: z.boolean(),
      facilityId: z.uuid().optional().describe('the facility that makes the item, once routed'),
    },
  ),
  'order.late': message(
    'order.late',
    'OrderLateMessage',
    'the order was not shipped by its ship-by time (told once; time on hold not counted)',
    { shipBy: instant },
  ),
  'order.proof.ready': message(
    'order.proof.ready',
    'ProofReadyMessage',
    "an item's proof waits for its approvers: each has a link to it",
    {
      version: proofVersion,
      printFileSha256: sha256,
      pages: z.number().int().min(1).max(10_000),
      approvers: z.array(approverLink),
      linksExpireAt: instant,
    },
  ),
  'order.proof.approved': message(
    'order.proof.approved',
    'ProofApprovedMessage',
    "one approver approved an item's proof (the print file that will be printed)",
    { version: proofVersion, printFileSha256: sha256, by: decidedBy },
  ),
  'order.proof.rejected': message(
    'order.proof.rejected',
    'ProofRejectedMessage',
    "one approver asked for changes to an item's proof, with a comment and pins",
    {
      version: proofVersion,
      printFileSha256: sha256,
      by: decidedBy,
      comment: z.string().optional(),
      pins: z.array(pinSchema),
    },
  ),
  'order.approved': message(
    'order.approved',
    'OrderApprovedMessage',
    'every item of the order that waited for approval is approved: production may take them',
    {},
  ),
  'order.proof.reminder': message(
    'order.proof.reminder',
    'ProofReminderMessage',
    'a proof still waits for these approvers (sent once a version, after the reminder time)',
    { version: proofVersion, approvers: z.array(approverLink), linksExpireAt: instant },
  ),
  'order.proof.expired': message(
    'order.proof.expired',
    'ProofExpiredMessage',
    'a proof was not approved in time: the item is not produced',
    { version: proofVersion },
  ),
  'audit.tree_head': labelMessage(
    'audit.tree_head',
    'AuditTreeHeadMessage',
    "the day's signed tree head of the audit log, once a day (UTC): its data is the head as " +
      'GET /api/audit/tree-head gives it (with the day). Keep it: a later head proves it extends ' +
      'this one (GET /api/audit/consistency), and scripts/verify-audit.mjs takes it as --earlier or --head',
    {
      day: z.iso.date().describe('the UTC day it is the head of'),
      treeSize: z
        .number()
        .int()
        .min(1)
        .max(1_000_000_000_000)
        .describe('the number of events the tree holds'),
      rootHash: sha256.describe('the Merkle tree hash (RFC 9162) of those events, hex'),
      timestamp: instant.describe('when the head was signed (the time it signs)'),
      keyId: z.string().describe('the key that signed it, as GET /api/audit/public-keys lists it'),
      signature: z
        .string()
        .describe(
          'Ed25519 over "editor-platform tree head v1\\n{treeSize}\\n{rootHash}\\n{timestamp}", base64',
        ),
    },
  ),
} satisfies Record<WebhookEventType, { body: z.ZodType; entry: z.ZodType }>;

const entries = WEBHOOK_EVENT_TYPES.map((t) => MESSAGE_SCHEMAS[t].entry);

/**
 * Any message as the events feed lists it (of an order, or the label's daily head): told apart by
 * `type`.
 */
export const orderMessageSchema = z
  .discriminatedUnion(
    'type',
    entries as unknown as [(typeof entries)[number], ...(typeof entries)[number][]],
  )
  .meta({
    id: 'OrderMessage',
    description:
      "a message as the events feed lists it (of an order, or the audit log's daily head): its body and its id",
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(
        WEBHOOK_EVENT_TYPES.map((t) => [
          t,
          `#/components/schemas/${MESSAGE_SCHEMAS[t].entry.meta()?.id as string}`,
        ]),
      ),
    },
  });

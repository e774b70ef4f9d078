import { z } from 'zod';
import type { TimelineRow } from '#projections/order-production';
import { ORDER_STATUSES } from '#projections/orders';
import type { orderView } from '../../app/orders.ts';
import {
  barcodeSchema,
  orderIdSchema,
  PRODUCTION_STAGES,
  preflightReportSchema,
} from '../../domain/order/events.ts';
import { shipToSchema } from '../../domain/order/ship-to.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { workflowIds } from '../../temporal/contract.ts';
import { itemApprovalSchema, type LinkFor, toItemApproval } from './approval.ts';
import { byteSize, count, instant, sha256Hex } from './common.ts';

export const saleItemSchema = z
  .object({
    itemId: z.string().min(1).max(128),
    projectId: z.uuid({ message: 'must be a UUID' }).optional(),
    cartItemId: z.uuid({ message: 'must be a UUID' }).optional(),
    quantity: z.number().int().min(1).max(1_000_000),
    datasetId: z
      .uuid({ message: 'must be a UUID' })
      .optional()
      .describe(
        'a variable item: one record per row of this data set (POST /api/datasets), quantity copies of each',
      ),
  })
  .strict()
  .refine((i) => (i.projectId === undefined) !== (i.cartItemId === undefined), {
    message: 'name either a projectId or a cartItemId',
  })
  .meta({
    id: 'SaleItem',
    description: 'a line of the sale: a saved project or a cart item, and how many',
  });

export const notificationBody = z
  .object({
    orderId: orderIdSchema,
    items: z.array(saleItemSchema).min(1).max(100),
    customer: z
      .object({ name: z.string().max(200).optional(), email: z.email().max(320).optional() })
      .strict()
      .optional()
      .meta({ id: 'Customer', description: 'who bought it: kept encrypted, erasable' }),
    giftMessage: z
      .string()
      .max(500)
      .optional()
      .meta({ description: "the customer's gift note for the packing slip: kept encrypted" }),
    shipTo: shipToSchema
      .optional()
      .describe(
        "the recipient: checked against its country's rules (postal code, region, required fields), kept encrypted, erasable",
      ),
    approval: z.object({ required: z.boolean() }).strict().optional().meta({
      description:
        "whether this order's items wait for their proofs to be approved, whatever the label's approval policy says (its approvers still decide)",
    }),
  })
  .strict()
  .meta({
    id: 'SaleNotification',
    example: {
      orderId: 'SHOP-100234',
      items: [
        { itemId: 'line-1', projectId: '5f0e8a52-3c1a-4e47-9f57-0d5f4f1c9b11', quantity: 10 },
      ],
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    },
  });

export const notificationAnswer = z
  .object({
    orderId: z.string(),
    status: z.literal('accepted'),
    items: z.array(
      z.object({ itemId: z.string(), orderItemId: z.uuid() }).meta({
        id: 'AcceptedItem',
        description: 'an item of the sale and the order item id it got',
      }),
    ),
  })
  .meta({ id: 'SaleAccepted' });

export const orderStatusSchema = z.enum(ORDER_STATUSES).meta({
  id: 'OrderStatus',
  description: 'received, rendering, ready (every print file stored), failed, or cancelled',
});

const printFileSchema = z
  .object({
    url: z.string().meta({ format: 'uri' }),
    sha256: sha256Hex,
    pages: count,
    bytes: byteSize,
  })
  .meta({ id: 'PrintFile', description: 'one PDF/X-4 file of an order item; download it at url' });

export const preflightSchema = z
  .object({
    sha256: sha256Hex,
    ...preflightReportSchema.shape,
    rules: z.array(preflightReportSchema.shape.rules.element.meta({ id: 'PreflightRule' })),
  })
  .meta({ id: 'Preflight', description: "the service's own checks of the latest print file" });

export const productionStageSchema = z.enum(PRODUCTION_STAGES).meta({
  id: 'ProductionStage',
  description:
    'where an item is on the shop floor: ready (its print file made), batched, printed, packed, shipped, delivered; or reprinting, returned',
});

const timelineEntrySchema = z
  .object({
    stage: z
      .string()
      .describe('the stage reached, or what happened: on_hold, released, late, reprint_differs'),
    at: instant,
    via: z.enum(['scan', 'api', 'batch']).optional(),
    station: z.string().optional(),
    detail: z.string().optional().describe('the carrier and tracking number, a reason'),
  })
  .meta({ id: 'TimelineEntry' });

const shipmentSchema = z
  .object({
    shipmentId: z.uuid(),
    orderItemIds: z.array(z.uuid()),
    carrier: z.string(),
    trackingNumber: z.string(),
    trackingUrl: z.string().optional(),
    facilityId: z.uuid().optional().describe('the facility it left from'),
    shippedAt: instant,
    deliveredAt: instant.optional(),
    returnedAt: instant.optional(),
    returnReason: z.string().optional(),
  })
  .meta({ id: 'OrderShipment' });

const holdSchema = z
  .object({
    holdId: z.uuid(),
    reason: z.string(),
    heldAt: instant,
    releasedAt: instant.optional(),
  })
  .meta({ id: 'OrderHold' });

export const orderItemSchema = z
  .object({
    orderItemId: z.uuid(),
    itemId: z.string(),
    sku: z.string(),
    quantity: count,
    status: z.string().describe('received, rendering, ready or failed'),
    reason: z.string().optional(),
    warnings: z.array(z.string()),
    printFiles: z.array(printFileSchema),
    barcode: barcodeSchema.optional(),
    /** the latest print file's preflight: each rule's result */
    preflight: preflightSchema.optional(),
    stage: productionStageSchema.optional().describe('none until its first print file is made'),
    timeline: z.array(timelineEntrySchema).describe('its stages, oldest first'),
    approval: itemApprovalSchema
      .optional()
      .describe('its proofs and their approval, when it waits for one (none otherwise)'),
    variable: z
      .object({
        datasetId: z.uuid(),
        sha256: sha256Hex,
        records: count,
        fields: z.array(z.string()),
      })
      .optional()
      .describe('a variable item: its data set and how many records its print file holds'),
    reprints: z
      .array(
        z
          .object({
            reprintId: z.uuid(),
            records: z.array(count),
            matches: z.boolean().describe("each record's bytes are those of the item's file"),
            url: z.string(),
            sha256: sha256Hex,
            pages: count,
            bytes: byteSize,
          })
          .meta({ id: 'RecordsReprint' }),
      )
      .optional()
      .describe("a variable item's reprints of some records, each a file of just those"),
    routing: z
      .enum(['pending', 'routed', 'unroutable'])
      .describe(
        'pending: not routed (yet: its file is not ready or approved; or the label has no facilities), routed: made at facilityId, unroutable: no facility can make it',
      ),
    facilityId: z.uuid().optional().describe('the facility that makes it'),
    routedDay: z.iso.date().optional().describe('the working day whose capacity it takes there'),
  })
  .meta({ id: 'OrderItem' });

export const orderSchema = z
  .object({
    orderId: z.string(),
    status: orderStatusSchema,
    reason: z.string().optional(),
    /** unfinished and past the label's render deadline now */
    overdue: z.boolean(),
    receivedAt: instant,
    renderDueAt: instant,
    readyAt: instant.optional(),
    cancelledAt: instant.optional(),
    lastError: z.string().optional(),
    workflowId: z.string(),
    stage: productionStageSchema
      .optional()
      .describe("its least advanced item's stage (reprinting or returned first)"),
    onHold: z.boolean(),
    shipBy: instant
      .optional()
      .describe('when it must be shipped: moved on by time on hold, and paused while on hold'),
    late: z.boolean().describe('past its ship-by time and not shipped'),
    shipTo: shipToSchema
      .optional()
      .describe('the recipient (absent: none given, or the customer was erased)'),
    customerErased: z.boolean().describe("the customer's personal data was erased"),
    items: z.array(orderItemSchema),
    shipments: z.array(shipmentSchema),
    holds: z.array(holdSchema),
    /** what happened to the order as a whole: holds, releases, lateness */
    timeline: z.array(timelineEntrySchema),
  })
  .meta({ id: 'Order' });

/** An order as its admin sees it; print files by URL. */
export function toOrderAnswer(
  order: Awaited<ReturnType<typeof orderView>>,
  orderId: string,
  publicBaseUrl: string,
  linkFor?: LinkFor,
): z.infer<typeof orderSchema> {
  return {
    orderId,
    status: order.status,
    ...(order.reason ? { reason: order.reason } : {}),
    overdue: order.overdue,
    receivedAt: order.received_at.toISOString(),
    renderDueAt: order.render_due_at.toISOString(),
    ...(order.ready_at ? { readyAt: order.ready_at.toISOString() } : {}),
    ...(order.cancelled_at ? { cancelledAt: order.cancelled_at.toISOString() } : {}),
    ...(order.last_error ? { lastError: order.last_error } : {}),
    workflowId: workflowIds.order(order.label_id, orderId),
    ...(order.stage ? { stage: order.stage } : {}),
    onHold: order.holds_open > 0,
    ...(order.ship_by ? { shipBy: order.ship_by.toISOString() } : {}),
    late: order.late,
    ...(order.shipTo ? { shipTo: order.shipTo } : {}),
    customerErased: order.customer_erased,
    shipments: order.production.shipments.map((s) => ({
      shipmentId: s.shipment_id,
      orderItemIds: s.order_item_ids,
      carrier: s.carrier,
      trackingNumber: s.tracking_number,
      ...(s.tracking_url ? { trackingUrl: s.tracking_url } : {}),
      ...(s.facility_id ? { facilityId: s.facility_id } : {}),
      shippedAt: s.shipped_at.toISOString(),
      ...(s.delivered_at ? { deliveredAt: s.delivered_at.toISOString() } : {}),
      ...(s.returned_at ? { returnedAt: s.returned_at.toISOString() } : {}),
      ...(s.return_reason ? { returnReason: s.return_reason } : {}),
    })),
    holds: order.production.holds.map((h) => ({
      holdId: h.hold_id,
      reason: h.reason,
      heldAt: h.held_at.toISOString(),
      ...(h.released_at ? { releasedAt: h.released_at.toISOString() } : {}),
    })),
    timeline: order.production.timeline.filter((t) => t.order_item_id === null).map(entry),
    items: order.items.map((i) => ({
      orderItemId: i.order_item_id,
      itemId: i.item_id,
      sku: i.sku,
      quantity: i.quantity,
      status: i.status,
      ...(i.reason ? { reason: i.reason } : {}),
      warnings: i.warnings,
      printFiles: i.print_files.map((f) => ({
        url: `${publicBaseUrl}/api/orderitem/${i.order_item_id}/printfile?sha256=${f.sha256}`,
        sha256: f.sha256,
        pages: f.pages,
        bytes: f.bytes,
      })),
      ...(i.barcode ? { barcode: i.barcode } : {}),
      ...(i.preflight ? { preflight: i.preflight } : {}),
      ...(i.stage ? { stage: i.stage } : {}),
      timeline: order.production.timeline
        .filter((t) => t.order_item_id === i.order_item_id)
        .map(entry),
      ...(i.variable ? { variable: i.variable } : {}),
      routing: i.routing ?? 'pending',
      ...(i.facility_id ? { facilityId: i.facility_id } : {}),
      ...(i.routed_day ? { routedDay: i.routed_day } : {}),
      ...(i.reprints.length > 0
        ? {
            reprints: i.reprints.map((r) => ({
              reprintId: r.reprintId,
              records: r.records,
              matches: r.matches,
              url: `${publicBaseUrl}/api/orderitem/${i.order_item_id}/printfile?sha256=${r.sha256}`,
              sha256: r.sha256,
              pages: r.pages,
              bytes: r.bytes,
            })),
          }
        : {}),
      ...(i.approval
        ? {
            approval: toItemApproval(
              i.approval,
              { labelId: i.label_id, orderItemId: i.order_item_id },
              publicBaseUrl,
              linkFor,
            ),
          }
        : {}),
    })),
  };
}

const entry = (t: TimelineRow): z.infer<typeof timelineEntrySchema> => ({
  stage: t.stage,
  at: t.at.toISOString(),
  ...(t.via ? { via: t.via as 'scan' | 'api' | 'batch' } : {}),
  ...(t.station ? { station: t.station } : {}),
  ...(t.detail ? { detail: t.detail } : {}),
});

export const historySchema = z.array(
  z
    .object({
      type: z.string(),
      at: instant,
      revision: count,
      /** who caused it: "admin:<labelId>", "operator", "workflow:print", ... */
      actor: z.string().optional(),
      /** the request (x-request-id) that caused it, where a request did */
      correlationId: z.string().optional(),
      data: z.record(z.string(), z.unknown()),
    })
    .meta({ id: 'OrderEvent', description: 'an event of the order as stored' }),
);

export const toHistory = (events: RecordedEvent[]): z.infer<typeof historySchema> =>
  events.map((e) => ({
    type: e.type,
    at: e.recordedAt.toISOString(),
    revision: Number(e.revision),
    ...(e.metadata.actor ? { actor: e.metadata.actor } : {}),
    ...(e.metadata.correlationId ? { correlationId: e.metadata.correlationId } : {}),
    data: e.data,
  }));

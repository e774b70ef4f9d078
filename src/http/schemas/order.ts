import { z } from 'zod';
import { type findOrder, ORDER_STATUSES } from '#projections/orders';
import { orderIdSchema, preflightReportSchema } from '../../domain/order/events.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { workflowIds } from '../../temporal/workflow-ids.ts';

export const notificationBody = z
  .object({
    orderId: orderIdSchema,
    items: z
      .array(
        z
          .object({
            itemId: z.string().min(1).max(128),
            projectId: z.uuid({ message: 'must be a UUID' }).optional(),
            cartItemId: z.uuid({ message: 'must be a UUID' }).optional(),
            quantity: z.number().int().min(1).max(1_000_000),
          })
          .strict()
          .refine((i) => (i.projectId === undefined) !== (i.cartItemId === undefined), {
            message: 'name either a projectId or a cartItemId',
          }),
      )
      .min(1)
      .max(100),
    customer: z
      .object({ name: z.string().max(200).optional(), email: z.email().max(320).optional() })
      .strict()
      .optional(),
  })
  .strict()
  .meta({
    example: {
      orderId: 'SHOP-100234',
      items: [
        { itemId: 'line-1', projectId: '5f0e8a52-3c1a-4e47-9f57-0d5f4f1c9b11', quantity: 10 },
      ],
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    },
  });

export const notificationAnswer = z.object({
  orderId: z.string(),
  status: z.literal('accepted'),
  items: z.array(z.object({ itemId: z.string(), orderItemId: z.uuid() })),
});

const printFileSchema = z.object({
  url: z.string(),
  sha256: z.string(),
  pages: z.number().int(),
  bytes: z.number().int(),
});

export const preflightSchema = z.object({ sha256: z.string(), ...preflightReportSchema.shape });

export const orderSchema = z.object({
  orderId: z.string(),
  status: z.enum(ORDER_STATUSES),
  reason: z.string().optional(),
  /** unfinished and past the label's render deadline now */
  overdue: z.boolean(),
  receivedAt: z.string(),
  renderDueAt: z.string(),
  readyAt: z.string().optional(),
  cancelledAt: z.string().optional(),
  lastError: z.string().optional(),
  workflowId: z.string(),
  items: z.array(
    z.object({
      orderItemId: z.uuid(),
      itemId: z.string(),
      sku: z.string(),
      quantity: z.number().int(),
      status: z.string(),
      reason: z.string().optional(),
      warnings: z.array(z.string()),
      printFiles: z.array(printFileSchema),
      barcode: z.object({ format: z.string(), value: z.string() }).optional(),
      /** the latest print file's preflight: each rule's result */
      preflight: preflightSchema.optional(),
    }),
  ),
});

/** An order as its admin sees it; print files by URL. */
export function toOrderAnswer(
  order: Awaited<ReturnType<typeof findOrder>> & object,
  orderId: string,
  publicBaseUrl: string,
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
    })),
  };
}

export const historySchema = z.array(
  z.object({
    type: z.string(),
    at: z.string(),
    revision: z.number().int(),
    /** who caused it: "admin:<labelId>", "operator", "workflow:print", ... */
    actor: z.string().optional(),
    /** the request (x-request-id) that caused it, where a request did */
    correlationId: z.string().optional(),
    data: z.record(z.string(), z.unknown()),
  }),
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

import { z } from 'zod';
import { ORDER_STATUSES, type OrderListRow } from '#projections/orders';
import type { OrderPage } from '../../app/order-lists.ts';
import { MAX_PAGE } from '../../app/order-lists.ts';
import { orderIdSchema, PRODUCTION_STAGES } from '../../domain/order/events.ts';
import { workflowIds } from '../../temporal/contract.ts';
import { count, instant } from './common.ts';
import { orderStatusSchema, productionStageSchema } from './order.ts';

const instantQuery = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' });

/** The filters of both order lists (a label admin's and the operator's). */
export const orderListQuery = z
  .object({
    status: z.enum([...ORDER_STATUSES, 'overdue']).optional(),
    stage: z
      .enum([...PRODUCTION_STAGES, 'on_hold'])
      .optional()
      .describe("the order's stage (its least advanced item's), or on_hold"),
    late: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional()
      .describe('true: only orders past their ship-by time and not shipped'),
    since: instantQuery.optional().describe('received at or after this instant'),
    until: instantQuery.optional().describe('received before this instant'),
    q: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe("a prefix of the order id, of a shop's item id or of an order item id"),
    facilityId: z
      .uuid({ message: 'must be a UUID' })
      .optional()
      .describe('orders with an item made at this facility'),
    cursor: z.string().min(1).max(600).optional().describe('the `next` of the page before'),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(50),
  })
  .strict();

export const orderRowSchema = z
  .object({
    orderId: z.string(),
    labelId: z.uuid(),
    labelName: z.string().nullable(),
    status: orderStatusSchema,
    /** unfinished and past the label's render deadline now */
    overdue: z.boolean(),
    items: z
      .object({
        total: count,
        received: count,
        rendering: count,
        ready: count,
        failed: count,
      })
      .meta({ id: 'ItemCounts', description: "how many of the order's items are in each state" }),
    receivedAt: instant,
    renderDueAt: instant,
    readyAt: instant.nullable(),
    overdueAt: instant.nullable().describe('when the lateness was recorded'),
    cancelledAt: instant.nullable(),
    ageSeconds: count,
    lastError: z.string().nullable(),
    workflowId: z.string(),
    stage: productionStageSchema.nullable(),
    onHold: z.boolean(),
    shipBy: instant.nullable(),
    late: z.boolean().describe('past its ship-by time and not shipped'),
  })
  .meta({ id: 'OrderSummary', description: 'an order as a row of an order list' });
export type OrderRowAnswer = z.infer<typeof orderRowSchema>;

export const orderPageSchema = z
  .object({
    orders: z.array(orderRowSchema),
    next: z.string().nullable().describe('path and query of the next page; null on the last'),
  })
  .meta({ id: 'OrderPage' });

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toOrderRow(row: OrderListRow, now = Date.now()): OrderRowAnswer {
  return {
    orderId: row.order_id,
    labelId: row.label_id,
    labelName: row.label_name,
    status: row.status,
    overdue: row.overdue,
    items: {
      total: row.items_total,
      received: row.items_total - row.items_ready - row.items_failed - row.items_rendering,
      rendering: row.items_rendering,
      ready: row.items_ready,
      failed: row.items_failed,
    },
    receivedAt: row.received_at.toISOString(),
    renderDueAt: row.render_due_at.toISOString(),
    readyAt: iso(row.ready_at),
    overdueAt: iso(row.overdue_at),
    cancelledAt: iso(row.cancelled_at),
    ageSeconds: Math.max(0, Math.floor((now - row.received_at.getTime()) / 1000)),
    lastError: row.last_error,
    workflowId: workflowIds.order(row.label_id, row.order_id),
    stage: row.stage,
    onHold: row.holds_open > 0,
    shipBy: iso(row.ship_by),
    late: row.late,
  };
}

/**
 * A page as answered: its rows, and the link to the next page (the same path and
 * filters, the cursor of this page's last row).
 */
export function toOrderPage(
  page: OrderPage,
  path: string,
  query: Record<string, unknown>,
): z.infer<typeof orderPageSchema> {
  let next: string | null = null;
  if (page.cursor) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query))
      if (v !== undefined && k !== 'cursor') params.set(k, String(v));
    params.set('cursor', page.cursor);
    next = `${path}?${params.toString()}`;
  }
  return { orders: page.orders.map((o) => toOrderRow(o)), next };
}

export const orderActionParams = z.object({ orderId: orderIdSchema }).strict();

export const retryAnswerSchema = z
  .object({
    orderId: z.string(),
    orderItemIds: z.array(z.uuid()).describe('the items rendered again'),
    workflowId: z.string(),
  })
  .meta({ id: 'RetryStarted' });

export const cancelBody = z
  .object({ reason: z.string().trim().min(1).max(500).optional() })
  .strict()
  .meta({ id: 'CancelRequest', example: { reason: 'the customer withdrew the order' } });

export const cancelAnswerSchema = z
  .object({
    orderId: z.string(),
    status: z.literal('cancelled'),
    cancelledAt: instant,
  })
  .meta({ id: 'OrderCancelled' });

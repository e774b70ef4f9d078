import { lateCounts, productionBoard } from '#projections/order-production';
import {
  listOrders,
  type OrderListFilter,
  type OrderListRow,
  type OrderStatus,
  orderCounts,
} from '#projections/orders';
import { DomainError } from '../domain/shared/decider.ts';
import type { AppContext } from './context.ts';

export const MAX_PAGE = 200;

export interface OrderQuery {
  /** one label's orders; every label's when absent (the operator) */
  labelId?: string | undefined;
  status?: OrderStatus | 'overdue' | undefined;
  stage?: OrderListFilter['stage'];
  late?: boolean | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  q?: string | undefined;
  /** orders with an item made at this facility */
  facilityId?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

export interface OrderPage {
  orders: OrderListRow[];
  /** where the next page starts, when there may be one */
  cursor: string | undefined;
}

/** A keyset position as an opaque token: the last row's receipt time and stream. */
export const encodeCursor = (row: Pick<OrderListRow, 'received_at' | 'stream_id'>) =>
  Buffer.from(JSON.stringify([row.received_at.toISOString(), row.stream_id])).toString('base64url');

function decodeCursor(cursor: string): OrderListFilter['after'] {
  const invalid = () =>
    new DomainError('invalid', 'the cursor is not one this service gave out', 'invalid_cursor', {
      field: 'query.cursor',
    });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    typeof parsed[1] !== 'string' ||
    parsed[1].length > 300 ||
    Number.isNaN(Date.parse(parsed[0]))
  )
    throw invalid();
  return { receivedAt: new Date(parsed[0]), streamId: parsed[1] };
}

/**
 * A page of orders, newest first, with the filters of the lists; the cursor of the next
 * page when this one is full. A label admin's query always carries its label.
 */
export async function orderPage(ctx: AppContext, query: OrderQuery): Promise<OrderPage> {
  const limit = Math.min(Math.max(1, query.limit), MAX_PAGE);
  const orders = await listOrders(ctx.pool, {
    labelId: query.labelId,
    status: query.status,
    stage: query.stage,
    late: query.late,
    since: query.since,
    until: query.until,
    q: query.q,
    facilityId: query.facilityId,
    after: query.cursor ? decodeCursor(query.cursor) : undefined,
    limit,
  });
  const last = orders.at(-1);
  return { orders, cursor: orders.length === limit && last ? encodeCursor(last) : undefined };
}

/** The columns of the production board: items per stage and the longest waiting in each. */
export const BOARD_STAGES = [
  'ready',
  'batched',
  'printed',
  'packed',
  'reprinting',
  'returned',
  'shipped',
];
export const shopFloorBoard = (ctx: AppContext, labelId?: string, facilityId?: string) =>
  productionBoard(ctx.pool, BOARD_STAGES, labelId, facilityId);

/** Late orders (not shipped by their ship-by time) per label and stage. */
export const lateOrderCounts = (ctx: AppContext, labelId?: string) => lateCounts(ctx.pool, labelId);

/** Counts per label and status, overdue and the oldest unfinished order. */
export const orderOverview = (ctx: AppContext, labelId?: string) => orderCounts(ctx.pool, labelId);

import type pg from 'pg';
import type { BarcodeFormat } from '../src/domain/order/barcode.ts';
import { orderEvents, type Preflight, type ProductionStage } from '../src/domain/order/events.ts';
import type { Encrypted } from '../src/domain/shared/encrypted.ts';
import {
  APPROVAL_EVENTS,
  type ApprovalView,
  applyApprovals,
  PROOF_DUE_SQL,
} from './order-approvals.ts';
import {
  applyProduction,
  LATE_NOW,
  ORDER_STAGE_SQL,
  PRODUCTION_EVENTS,
  PRODUCTION_SCHEMA,
} from './order-production.ts';
import type { Projection } from './projection.ts';

export const ORDER_STATUSES = ['received', 'rendering', 'ready', 'failed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** Not finished: what can still become ready, and what counts as overdue past its deadline. */
const UNFINISHED = `('received', 'rendering', 'failed')`;

/**
 * Orders and their items: for the order routes, the order lists of operators and label
 * admins (keyset pages, newest first, indexed for every filter at a million orders), the
 * ops page and the metrics, and for finding an order item by id.
 */
export const ordersProjection: Projection = {
  name: 'orders',
  // 2: lists, lateness, retry and cancel (counts, deadlines, last error, indexes)
  // 3: orders counted per label and status as they change
  // 4: each item's latest preflight
  // 5: the last error only while it is current (cleared when the order is ready or retried)
  // 6: the shop floor: stages, timelines, shipments, holds, ship-by and lateness
  // 10: where each item is made (its facility, routing, day) and the recipient's country
  version: 10,
  tables: [
    'rm_orders',
    'rm_order_items',
    'rm_order_counts',
    'rm_order_timeline',
    'rm_order_shipments',
    'rm_order_holds',
    'rm_stage_counts',
  ],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_orders (
      stream_id      text PRIMARY KEY,
      label_id       uuid NOT NULL,
      order_id       text COLLATE "C" NOT NULL,
      status         text NOT NULL,
      reason         text,
      last_error     text,
      items_total    integer NOT NULL DEFAULT 0,
      items_ready    integer NOT NULL DEFAULT 0,
      items_failed   integer NOT NULL DEFAULT 0,
      items_rendering integer NOT NULL DEFAULT 0,
      received_at    timestamptz NOT NULL,
      render_due_at  timestamptz NOT NULL,
      ready_at       timestamptz,
      overdue_at     timestamptz,
      cancelled_at   timestamptz,
      ship_by        timestamptz,
      late_at        timestamptz,
      ship_to_country text,
      -- the recipient, encrypted as in its events, and the owner id of its key (NULL: the label's)
      ship_to        jsonb,
      personal_data_key uuid,
      customer_erased boolean NOT NULL DEFAULT false,
      -- the least advanced stage of its items (reprinting or returned first); NULL before all are ready
      stage          text,
      holds_open     integer NOT NULL DEFAULT 0,
      held_since     timestamptz,
      held_ms        bigint NOT NULL DEFAULT 0,
      updated_at     timestamptz NOT NULL,
      UNIQUE (label_id, order_id)
    );
    CREATE TABLE IF NOT EXISTS rm_order_items (
      order_item_id uuid PRIMARY KEY,
      stream_id     text NOT NULL,
      label_id      uuid NOT NULL,
      order_id      text NOT NULL,
      item_id       text COLLATE "C" NOT NULL,
      position      integer NOT NULL,
      sku           text NOT NULL,
      quantity      integer NOT NULL,
      status        text NOT NULL,
      reason        text,
      failure_kind  text,
      barcode       jsonb,
      print_files   jsonb NOT NULL DEFAULT '[]',
      warnings      jsonb NOT NULL DEFAULT '[]',
      preflight     jsonb,
      stage         text,
      stage_at      timestamptz,
      shipment_id   uuid,
      -- its proofs and their approval (order-approvals.ts); NULL when it needs none
      approval      jsonb,
      -- a variable item's data set: {datasetId, sha256, records, fields}; NULL for one record
      variable      jsonb,
      -- its reprints' files of some records: [{reprintId, records, matches, storageKey, sha256, pages, bytes}]
      reprints      jsonb NOT NULL DEFAULT '[]',
      -- where it is made: NULL routing until routed; 'unroutable' while no facility can make it
      routing       text,
      facility_id   uuid,
      routed_day    text COLLATE "C", -- YYYY-MM-DD in the facility's time zone
      routed_at     timestamptz
    );
    CREATE INDEX IF NOT EXISTS rm_order_items_facility
      ON rm_order_items (facility_id, routed_day) WHERE facility_id IS NOT NULL;
    CREATE INDEX IF NOT EXISTS rm_order_items_unroutable
      ON rm_order_items (label_id) WHERE routing = 'unroutable';
    CREATE INDEX IF NOT EXISTS rm_order_items_stream ON rm_order_items (stream_id, position);
    CREATE INDEX IF NOT EXISTS rm_order_items_item ON rm_order_items (item_id, stream_id);
    CREATE INDEX IF NOT EXISTS rm_order_items_id_text ON rm_order_items ((order_item_id::text) COLLATE "C");
    CREATE INDEX IF NOT EXISTS rm_orders_all ON rm_orders (received_at DESC, stream_id DESC);
    CREATE INDEX IF NOT EXISTS rm_orders_label ON rm_orders (label_id, received_at DESC, stream_id DESC);
    CREATE INDEX IF NOT EXISTS rm_orders_status ON rm_orders (status, received_at DESC, stream_id DESC);
    CREATE INDEX IF NOT EXISTS rm_orders_label_status
      ON rm_orders (label_id, status, received_at DESC, stream_id DESC);
    CREATE INDEX IF NOT EXISTS rm_orders_unfinished
      ON rm_orders (received_at DESC, stream_id DESC) WHERE status IN ${UNFINISHED};
    CREATE INDEX IF NOT EXISTS rm_orders_due ON rm_orders (render_due_at) WHERE status IN ${UNFINISHED};
    CREATE INDEX IF NOT EXISTS rm_orders_order_id ON rm_orders (order_id, label_id);
    -- kept by a trigger, so the overview and the metrics never count a million rows
    CREATE TABLE IF NOT EXISTS rm_order_counts (
      label_id uuid NOT NULL,
      status   text NOT NULL,
      n        bigint NOT NULL,
      PRIMARY KEY (label_id, status)
    );
    CREATE OR REPLACE FUNCTION rm_orders_count() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'UPDATE' AND OLD.status = NEW.status AND OLD.label_id = NEW.label_id THEN
        RETURN NULL;
      END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE rm_order_counts SET n = n - 1 WHERE label_id = OLD.label_id AND status = OLD.status;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO rm_order_counts (label_id, status, n) VALUES (NEW.label_id, NEW.status, 1)
        ON CONFLICT (label_id, status) DO UPDATE SET n = rm_order_counts.n + 1;
      END IF;
      RETURN NULL;
    END $fn$;
    CREATE OR REPLACE TRIGGER rm_orders_count AFTER INSERT OR DELETE OR UPDATE OF status, label_id
      ON rm_orders FOR EACH ROW EXECUTE FUNCTION rm_orders_count();
    ${PRODUCTION_SCHEMA}`,
  handles: new Set([
    'OrderReceived',
    'OrderRenderingStarted',
    'PrintFileGenerated',
    'OrderItemFailed',
    'OrderReady',
    'OrderFailed',
    'OrderItemBarcodeUpdated',
    'PrintFileMismatchDetected',
    'PrintFilePreflighted',
    'OrderRetryRequested',
    'OrderCancelled',
    'OrderWentOverdue',
    'ItemRouted',
    'ShipToCorrected',
    'CustomerErased',
    ...PRODUCTION_EVENTS,
    ...APPROVAL_EVENTS,
  ]),
  async apply(tx, stored) {
    /** orders whose items changed: their counts and stage, once each after the page */
    const recount = new Set<string>();
    for (const s of stored) {
      const e = orderEvents.deserialize(s);
      const at = s.recordedAt.toISOString();
      const setOrder = (fields: string, values: unknown[]) =>
        tx.query(`UPDATE rm_orders SET ${fields}, updated_at = $2 WHERE stream_id = $1`, [
          s.streamId,
          at,
          ...values,
        ]);
      switch (e.type) {
        case 'OrderReceived': {
          const d = e.data;
          await tx.query(
            `INSERT INTO rm_orders (stream_id, label_id, order_id, status, items_total, received_at,
               render_due_at, ship_by, updated_at, ship_to_country, ship_to, personal_data_key)
             VALUES ($1, $2, $3, 'received', $4, $5, $6, $7, $5, $8, $9, $10) ON CONFLICT DO NOTHING`,
            [
              s.streamId,
              d.labelId,
              d.orderId,
              d.items.length,
              d.receivedAt,
              d.renderDueAt,
              d.shipBy,
              d.shipToCountry,
              d.shipTo ? JSON.stringify(d.shipTo) : null,
              d.personalDataKey,
            ],
          );
          for (const [position, item] of d.items.entries()) {
            await tx.query(
              `INSERT INTO rm_order_items (order_item_id, stream_id, label_id, order_id, item_id, position, sku, quantity, status, variable)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'received', $9) ON CONFLICT DO NOTHING`,
              [
                item.orderItemId,
                s.streamId,
                d.labelId,
                d.orderId,
                item.itemId,
                position,
                item.sku,
                item.quantity,
                item.dataset
                  ? JSON.stringify({
                      datasetId: item.dataset.datasetId,
                      sha256: item.dataset.sha256,
                      records: item.dataset.rows,
                      fields: item.dataset.fields,
                    })
                  : null,
              ],
            );
          }
          break;
        }
        case 'ItemRouted': {
          const d = e.data;
          await tx.query(
            `UPDATE rm_order_items SET routing = $2, facility_id = $3, routed_day = $4, routed_at = $5
             WHERE order_item_id = $1`,
            [
              d.orderItemId,
              d.facilityId ? 'routed' : 'unroutable',
              d.facilityId,
              d.day,
              d.routedAt,
            ],
          );
          // counted on the facility's working days, the order may have to ship later
          if (d.shipBy)
            await tx.query(
              `UPDATE rm_orders SET ship_by = GREATEST(ship_by, $2)
               WHERE stream_id = $1 AND ship_by IS NOT NULL`,
              [s.streamId, d.shipBy],
            );
          break;
        }
        case 'ShipToCorrected':
          await setOrder('ship_to_country = $3, ship_to = $4', [
            e.data.country,
            JSON.stringify(e.data.shipTo),
          ]);
          break;
        case 'CustomerErased':
          await setOrder('customer_erased = true, ship_to = NULL', []);
          break;
        case 'OrderRenderingStarted':
          await tx.query(
            "UPDATE rm_order_items SET status = 'rendering' WHERE stream_id = $1 AND status = 'received'",
            [s.streamId],
          );
          await setOrder("status = 'rendering'", []);
          break;
        case 'PrintFileGenerated': {
          const d = e.data;
          const file = {
            storageKey: d.storageKey,
            sha256: d.sha256,
            pages: d.pages,
            bytes: d.bytes,
          };
          // one statement: the item's file, and its first file puts it on the shop floor
          // (stage 'ready', on the timeline) unless it is there already
          await tx.query(
            `WITH before AS (SELECT stage FROM rm_order_items WHERE order_item_id = $1),
             item AS (
               UPDATE rm_order_items SET status = 'ready', reason = NULL, failure_kind = NULL,
                 print_files = print_files || $2::jsonb, warnings = $3,
                 stage = COALESCE(stage, 'ready'),
                 stage_at = CASE WHEN stage IS NULL THEN $4::timestamptz ELSE stage_at END,
                 -- a new file needs its own proof approved (order-approvals.ts)
                 approval = ${PROOF_DUE_SQL}
               WHERE order_item_id = $1 RETURNING order_item_id)
             INSERT INTO rm_order_timeline (stream_id, revision, n, order_item_id, stage, at)
             SELECT $5, $6, 0, item.order_item_id, 'ready', $4::timestamptz
             FROM before, item WHERE before.stage IS NULL
             ON CONFLICT DO NOTHING`,
            [
              d.orderItemId,
              JSON.stringify([file]),
              JSON.stringify(d.warnings),
              d.generatedAt,
              s.streamId,
              String(s.revision),
            ],
          );
          break;
        }
        case 'PrintFilePreflighted': {
          const { orderItemId, checkedAt: _at, ...preflight } = e.data;
          await tx.query('UPDATE rm_order_items SET preflight = $2 WHERE order_item_id = $1', [
            orderItemId,
            JSON.stringify(preflight),
          ]);
          break;
        }
        case 'OrderItemFailed':
          await tx.query(
            "UPDATE rm_order_items SET status = 'failed', reason = $2, failure_kind = $3 WHERE order_item_id = $1",
            [e.data.orderItemId, e.data.reason, e.data.kind],
          );
          await setOrder('last_error = $3', [e.data.reason]);
          break;
        case 'OrderItemBarcodeUpdated':
          await tx.query('UPDATE rm_order_items SET barcode = $2 WHERE order_item_id = $1', [
            e.data.orderItemId,
            JSON.stringify(e.data.barcode),
          ]);
          break;
        case 'PrintFileMismatchDetected': {
          const d = e.data;
          const warning = `replay ${d.replayId}: the print file rendered again differs from the recorded one (recorded ${d.expected}, now ${d.actual})`;
          await tx.query(
            'UPDATE rm_order_items SET warnings = warnings || $2::jsonb WHERE order_item_id = $1',
            [d.orderItemId, JSON.stringify([warning])],
          );
          break;
        }
        case 'OrderReady':
          await setOrder("status = 'ready', reason = NULL, last_error = NULL, ready_at = $3", [
            e.data.readyAt,
          ]);
          break;
        case 'OrderFailed':
          await setOrder("status = 'failed', reason = $3, last_error = $3", [e.data.reason]);
          break;
        case 'OrderRetryRequested':
          await tx.query(
            `UPDATE rm_order_items SET status = 'received', reason = NULL, failure_kind = NULL
             WHERE order_item_id = ANY($1::uuid[])`,
            [e.data.orderItemIds],
          );
          await setOrder("status = 'received', reason = NULL, last_error = NULL", []);
          break;
        case 'OrderCancelled':
          await setOrder("status = 'cancelled', cancelled_at = $3", [e.data.cancelledAt]);
          break;
        case 'OrderWentOverdue':
          await setOrder('overdue_at = $3', [e.data.noticedAt]);
          break;
        case 'ApprovalRequired':
        case 'ProofMade':
        case 'ProofApproved':
        case 'ProofRejected':
        case 'ApprovalWaived':
        case 'ItemRevised':
        case 'OrderApproved':
        case 'ProofReminded':
        case 'ProofExpired':
          await applyApprovals(tx, s, e);
          break;
        default:
          await applyProduction(tx, s, e);
      }
      if (e.type !== 'OrderReceived') recount.add(s.streamId);
    }
    // the item counts and the order's stage follow the items (counted from them, so once
    // per order and page gives what once per event gave: a render's file, its preflight
    // and the order's readiness are one page)
    for (const streamId of recount)
      await tx.query(
        `UPDATE rm_orders o SET
           items_ready = c.ready, items_failed = c.failed, items_rendering = c.rendering,
           stage = c.stage
         FROM (SELECT count(*) FILTER (WHERE status = 'ready')::int AS ready,
                      count(*) FILTER (WHERE status = 'failed')::int AS failed,
                      count(*) FILTER (WHERE status = 'rendering')::int AS rendering,
                      ${ORDER_STAGE_SQL} AS stage
               FROM rm_order_items WHERE stream_id = $1) c
         WHERE o.stream_id = $1`,
        [streamId],
      );
  },
};

// ---- queries ----

export interface OrderItemRow {
  order_item_id: string;
  stream_id: string;
  label_id: string;
  order_id: string;
  item_id: string;
  sku: string;
  quantity: number;
  status: string;
  reason: string | null;
  failure_kind: string | null;
  barcode: { format: BarcodeFormat; value: string } | null;
  print_files: { storageKey: string; sha256: string; pages: number; bytes: number }[];
  warnings: string[];
  /** the latest print file's preflight */
  preflight: (Preflight & { sha256: string }) | null;
  stage: ProductionStage | null;
  stage_at: Date | null;
  shipment_id: string | null;
  /** its proofs and their approval; null when it needs none */
  approval: ApprovalView | null;
  /** a variable item's data set and record count; null for an item of one record */
  variable: { datasetId: string; sha256: string; records: number; fields: string[] } | null;
  /** its reprints' files of some records */
  reprints: {
    reprintId: string;
    records: number[];
    matches: boolean;
    storageKey: string;
    sha256: string;
    pages: number;
    bytes: number;
  }[];
  /** where it is made: null until routed; 'unroutable' while no facility can make it */
  routing: 'routed' | 'unroutable' | null;
  facility_id: string | null;
  routed_day: string | null;
}

/** A row of an order list (and the head of an order view). */
export interface OrderRow {
  stream_id: string;
  label_id: string;
  order_id: string;
  status: OrderStatus;
  reason: string | null;
  last_error: string | null;
  items_total: number;
  items_ready: number;
  items_failed: number;
  items_rendering: number;
  received_at: Date;
  render_due_at: Date;
  ready_at: Date | null;
  overdue_at: Date | null;
  cancelled_at: Date | null;
  /** computed as read: unfinished and past its deadline now */
  overdue: boolean;
  stage: ProductionStage | null;
  holds_open: number;
  /** the ship-by time as of now: moved on by time on hold (and still moving while held) */
  ship_by: Date | null;
  late_at: Date | null;
  /** computed as read: went late and still not shipped */
  late: boolean;
  ship_to_country: string | null;
  /** the recipient, encrypted with the order's key (null: none, or erased) */
  ship_to: Encrypted | null;
  personal_data_key: string | null;
  customer_erased: boolean;
}

/** A row of an order list: the order and its label's name. */
export type OrderListRow = OrderRow & { label_name: string | null };

const ORDER_COLUMNS = `stream_id, label_id, order_id, status, reason, last_error, items_total,
  items_ready, items_failed, items_rendering, received_at, render_due_at, ready_at,
  overdue_at, cancelled_at, (status IN ${UNFINISHED} AND render_due_at < now()) AS overdue,
  stage, holds_open, late_at, (${LATE_NOW}) AS late, ship_to_country, ship_to,
  personal_data_key, customer_erased,
  ship_by + held_ms * interval '1 millisecond'
    + CASE WHEN held_since IS NULL THEN interval '0' ELSE now() - held_since END AS ship_by`;

export async function findOrder(pool: pg.Pool, labelId: string, orderId: string) {
  // the items after the order row: they are then at least as recent as the order's status
  // (read beside it, on another connection, an order could show ready without its last file)
  const order = await pool.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM rm_orders WHERE label_id = $1 AND order_id = $2`,
    [labelId, orderId],
  );
  const row = order.rows[0];
  if (!row) return undefined;
  const items = await pool.query<OrderItemRow>(
    'SELECT * FROM rm_order_items WHERE stream_id = $1 ORDER BY position',
    [row.stream_id],
  );
  return { ...row, items: items.rows };
}

export async function findOrderItem(
  pool: pg.Pool,
  labelId: string,
  orderItemId: string,
): Promise<OrderItemRow | undefined> {
  const r = await pool.query<OrderItemRow>(
    'SELECT * FROM rm_order_items WHERE order_item_id = $1 AND label_id = $2',
    [orderItemId, labelId],
  );
  return r.rows[0];
}

/** One of an order item's print files: the one with `sha256`, else the latest. */
export async function findPrintFile(
  pool: pg.Pool,
  labelId: string,
  orderItemId: string,
  sha256?: string,
) {
  const item = await findOrderItem(pool, labelId, orderItemId);
  // a reprint's file of some records is one of the item's files too
  return sha256
    ? [...(item?.print_files ?? []), ...(item?.reprints ?? [])].find((f) => f.sha256 === sha256)
    : item?.print_files.at(-1);
}

export interface OrderListFilter {
  /** a label's own orders; every label's when absent (the operator) */
  labelId?: string | undefined;
  status?: OrderStatus | 'overdue' | undefined;
  /** the order's stage (its least advanced item's), or on_hold */
  stage?: ProductionStage | 'on_hold' | undefined;
  /** only orders that went late and are still not shipped */
  late?: boolean | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** a prefix of the order id, of a shop's item id or of an order item id */
  q?: string | undefined;
  /** orders with an item made at this facility */
  facilityId?: string | undefined;
  /** the keyset position after which the page starts: the last row of the page before */
  after?: { receivedAt: Date; streamId: string } | undefined;
  limit: number;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A page of orders, newest first (received_at, then stream id), after a keyset position:
 * every filter is served by an index, so a deep page costs what the first does.
 */
export async function listOrders(pool: pg.Pool, f: OrderListFilter): Promise<OrderListRow[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  if (f.labelId) where.push(`label_id = ${param(f.labelId)}`);
  if (f.status === 'overdue') where.push(`status IN ${UNFINISHED} AND render_due_at < now()`);
  else if (f.status) where.push(`status = ${param(f.status)}`);
  if (f.stage === 'on_hold') where.push(`holds_open > 0 AND status <> 'cancelled'`);
  else if (f.stage) where.push(`stage = ${param(f.stage)} AND status <> 'cancelled'`);
  if (f.late) where.push(LATE_NOW);
  if (f.since) where.push(`received_at >= ${param(f.since)}`);
  if (f.until) where.push(`received_at < ${param(f.until)}`);
  if (f.q) {
    const like = param(`${escapeLike(f.q)}%`);
    // three index range scans, each on its own (an OR of them would scan every order)
    where.push(`stream_id IN (
      SELECT stream_id FROM rm_orders WHERE order_id LIKE ${like} ESCAPE '\\'
      UNION SELECT stream_id FROM rm_order_items WHERE item_id LIKE ${like} ESCAPE '\\'
      UNION SELECT stream_id FROM rm_order_items
        WHERE (order_item_id::text) COLLATE "C" LIKE ${like} ESCAPE '\\')`);
  }
  if (f.facilityId)
    where.push(
      `stream_id IN (SELECT stream_id FROM rm_order_items WHERE facility_id = ${param(f.facilityId)})`,
    );
  if (f.after)
    where.push(
      `(received_at, stream_id) < (${param(f.after.receivedAt)}, ${param(f.after.streamId)})`,
    );
  // the label's name is looked up for the page's rows only
  const r = await pool.query<OrderListRow>(
    `SELECT o.*, l.name AS label_name FROM (
       SELECT ${ORDER_COLUMNS} FROM rm_orders
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY received_at DESC, stream_id DESC LIMIT ${param(f.limit)}) o
     LEFT JOIN rm_labels l ON l.label_id = o.label_id
     ORDER BY o.received_at DESC, o.stream_id DESC`,
    values,
  );
  return r.rows;
}

export interface OrderCounts {
  byStatus: { labelId: string; status: OrderStatus; count: number }[];
  /** unfinished (failed included) and past the deadline, per label */
  overdueByLabel: Map<string, number>;
  /** all of them */
  overdue: number;
  /** received_at of the oldest order still received or rendering, if any */
  oldestUnfinished: Date | undefined;
}

/** Counts for the overview and the metrics, of one label or of all. */
export async function orderCounts(pool: pg.Pool, labelId?: string): Promise<OrderCounts> {
  const byStatus = await pool.query<{ label_id: string; status: OrderStatus; n: number }>(
    `SELECT label_id, status, n::int AS n FROM rm_order_counts
     WHERE n > 0 AND ($1::uuid IS NULL OR label_id = $1) ORDER BY label_id, status`,
    [labelId ?? null],
  );
  // the unfinished orders are few: their partial index answers this
  const late = await pool.query<{ label_id: string; overdue: number; oldest: Date | null }>(
    `SELECT label_id, count(*) FILTER (WHERE render_due_at < now())::int AS overdue,
            min(received_at) FILTER (WHERE status <> 'failed') AS oldest
     FROM rm_orders WHERE status IN ${UNFINISHED} AND ($1::uuid IS NULL OR label_id = $1)
     GROUP BY label_id`,
    [labelId ?? null],
  );
  const oldest = late.rows
    .map((r) => r.oldest)
    .filter((d): d is Date => d !== null)
    .sort((x, y) => x.getTime() - y.getTime())[0];
  return {
    byStatus: byStatus.rows.map((r) => ({ labelId: r.label_id, status: r.status, count: r.n })),
    overdueByLabel: new Map(late.rows.map((r) => [r.label_id, r.overdue])),
    overdue: late.rows.reduce((n, r) => n + r.overdue, 0),
    oldestUnfinished: oldest,
  };
}

/** Orders still received or rendering that last changed more than `settledMs` ago, oldest first. */
export async function unfinishedOrders(
  pool: pg.Pool,
  settledMs: number,
  limit: number,
): Promise<{ label_id: string; order_id: string; stream_id: string }[]> {
  const r = await pool.query<{ label_id: string; order_id: string; stream_id: string }>(
    `SELECT label_id, order_id, stream_id FROM rm_orders
     WHERE status IN ('received', 'rendering') AND updated_at < now() - $1::interval
     ORDER BY received_at LIMIT $2`,
    [`${settledMs} milliseconds`, limit],
  );
  return r.rows;
}

/** Unfinished orders past their deadline whose lateness is not recorded yet. */
export async function lateOrders(pool: pg.Pool, limit: number): Promise<{ stream_id: string }[]> {
  const r = await pool.query<{ stream_id: string }>(
    `SELECT stream_id FROM rm_orders
     WHERE status IN ${UNFINISHED} AND render_due_at < now() AND overdue_at IS NULL
     ORDER BY render_due_at LIMIT $1`,
    [limit],
  );
  return r.rows;
}

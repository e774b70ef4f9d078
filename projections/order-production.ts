import type pg from 'pg';
import type { OrderEvent, ProductionStage } from '../src/domain/order/events.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';

/**
 * The shop floor part of the orders read model: each item's stage and timeline, the
 * order's shipments and holds, its ship-by time and lateness. Its tables belong to the
 * orders projection (orders.ts), which calls `applyProduction` for these events.
 */
export const PRODUCTION_EVENTS = [
  'OrderItemPrinted',
  'OrderItemPacked',
  'OrderShipped',
  'ShipmentDelivered',
  'ShipmentReturned',
  'OrderHeld',
  'OrderReleased',
  'OrderItemReprintRequested',
  'OrderItemReprinted',
  'OrderWentLate',
  'OrderItemBatched',
  'OrderItemUnbatched',
] as const;

/** An order counts as shipped when every item is; it is late only until then. */
const SHIPPED = `('shipped', 'delivered')`;

export const PRODUCTION_SCHEMA = `
    CREATE TABLE IF NOT EXISTS rm_order_timeline (
      stream_id     text NOT NULL,
      revision      bigint NOT NULL,
      n             smallint NOT NULL,
      order_item_id uuid,
      stage         text NOT NULL,
      at            timestamptz NOT NULL,
      via           text,
      station       text,
      detail        text,
      PRIMARY KEY (stream_id, revision, n)
    );
    CREATE TABLE IF NOT EXISTS rm_order_shipments (
      shipment_id     uuid PRIMARY KEY,
      stream_id       text NOT NULL,
      carrier         text NOT NULL,
      tracking_number text NOT NULL,
      tracking_url    text,
      order_item_ids  uuid[] NOT NULL,
      facility_id     uuid,
      shipped_at      timestamptz NOT NULL,
      delivered_at    timestamptz,
      returned_at     timestamptz,
      return_reason   text
    );
    CREATE INDEX IF NOT EXISTS rm_order_shipments_stream ON rm_order_shipments (stream_id, shipped_at);
    CREATE TABLE IF NOT EXISTS rm_order_holds (
      hold_id     uuid PRIMARY KEY,
      stream_id   text NOT NULL,
      reason      text NOT NULL,
      held_at     timestamptz NOT NULL,
      released_at timestamptz
    );
    CREATE INDEX IF NOT EXISTS rm_order_holds_stream ON rm_order_holds (stream_id, held_at);
    CREATE INDEX IF NOT EXISTS rm_order_items_code
      ON rm_order_items (label_id, (barcode->>'value')) WHERE barcode IS NOT NULL;
    CREATE INDEX IF NOT EXISTS rm_order_items_stage ON rm_order_items (stage, stage_at)
      WHERE stage IS NOT NULL AND stage <> 'delivered';
    CREATE INDEX IF NOT EXISTS rm_orders_stage ON rm_orders (stage, received_at DESC, stream_id DESC);
    CREATE INDEX IF NOT EXISTS rm_orders_label_stage
      ON rm_orders (label_id, stage, received_at DESC, stream_id DESC);
    -- the deadline watch's candidates: leave the index once shipped, late or cancelled
    CREATE INDEX IF NOT EXISTS rm_orders_ship_by ON rm_orders (ship_by)
      WHERE ship_by IS NOT NULL AND late_at IS NULL AND status <> 'cancelled'
        AND (stage IS NULL OR stage NOT IN ${SHIPPED});
    CREATE INDEX IF NOT EXISTS rm_orders_late ON rm_orders (received_at DESC, stream_id DESC)
      WHERE late_at IS NOT NULL AND status <> 'cancelled' AND (stage IS NULL OR stage NOT IN ${SHIPPED});
    CREATE INDEX IF NOT EXISTS rm_orders_held ON rm_orders (received_at DESC, stream_id DESC)
      WHERE holds_open > 0;
    -- items per label and stage, kept by a trigger for the board and the metrics
    CREATE TABLE IF NOT EXISTS rm_stage_counts (
      label_id uuid NOT NULL,
      stage    text NOT NULL,
      n        bigint NOT NULL,
      PRIMARY KEY (label_id, stage)
    );
    CREATE OR REPLACE FUNCTION rm_stage_count() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'UPDATE' AND OLD.stage IS NOT DISTINCT FROM NEW.stage THEN RETURN NULL; END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.stage IS NOT NULL THEN
        UPDATE rm_stage_counts SET n = n - 1 WHERE label_id = OLD.label_id AND stage = OLD.stage;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.stage IS NOT NULL THEN
        INSERT INTO rm_stage_counts (label_id, stage, n) VALUES (NEW.label_id, NEW.stage, 1)
        ON CONFLICT (label_id, stage) DO UPDATE SET n = rm_stage_counts.n + 1;
      END IF;
      RETURN NULL;
    END $fn$;
    CREATE OR REPLACE TRIGGER rm_stage_count AFTER INSERT OR DELETE OR UPDATE OF stage
      ON rm_order_items FOR EACH ROW EXECUTE FUNCTION rm_stage_count();`;

/**
 * The order's stage from its items': on hold above all, then a reprint or return, else the least
 * advanced.
 */
export const ORDER_STAGE_SQL = `CASE
  WHEN bool_or(stage = 'reprinting') THEN 'reprinting'
  WHEN bool_or(stage = 'returned') THEN 'returned'
  WHEN count(stage) < count(*) THEN NULL
  ELSE (ARRAY['ready','batched','printed','packed','shipped','delivered'])[
    min(array_position(ARRAY['ready','batched','printed','packed','shipped','delivered'], stage))]
  END`;

/** Applies one shop-floor event of an order's stream. */
export async function applyProduction(
  tx: pg.PoolClient,
  s: RecordedEvent,
  e: OrderEvent,
): Promise<void> {
  const line = (
    n: number,
    orderItemId: string | null,
    stage: string,
    at: string,
    more: { via?: string | undefined; station?: string | undefined; detail?: string } = {},
  ) =>
    tx.query(
      `INSERT INTO rm_order_timeline (stream_id, revision, n, order_item_id, stage, at, via, station, detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      [
        s.streamId,
        String(s.revision),
        n,
        orderItemId,
        stage,
        at,
        more.via ?? null,
        more.station ?? null,
        more.detail ?? null,
      ],
    );
  const itemStage = (ids: string[], stage: ProductionStage, at: string, shipment?: string | null) =>
    tx.query(
      `UPDATE rm_order_items SET stage = $2, stage_at = $3
         ${shipment === undefined ? '' : ', shipment_id = $4'}
       WHERE order_item_id = ANY($1::uuid[])`,
      shipment === undefined ? [ids, stage, at] : [ids, stage, at, shipment],
    );
  switch (e.type) {
    case 'OrderItemPrinted':
    case 'OrderItemPacked': {
      const d = e.data;
      const stage = e.type === 'OrderItemPrinted' ? 'printed' : 'packed';
      const at = e.type === 'OrderItemPrinted' ? e.data.printedAt : e.data.packedAt;
      await itemStage([d.orderItemId], stage, at);
      await line(0, d.orderItemId, stage, at, { via: d.via, station: d.station });
      break;
    }
    case 'OrderShipped': {
      const d = e.data;
      await tx.query(
        `INSERT INTO rm_order_shipments (shipment_id, stream_id, carrier, tracking_number, tracking_url, order_item_ids, shipped_at, facility_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        [
          d.shipmentId,
          s.streamId,
          d.carrier,
          d.trackingNumber,
          d.trackingUrl ?? null,
          d.orderItemIds,
          d.shippedAt,
          d.facilityId ?? null,
        ],
      );
      await itemStage(d.orderItemIds, 'shipped', d.shippedAt, d.shipmentId);
      for (const [n, id] of d.orderItemIds.entries())
        await line(n, id, 'shipped', d.shippedAt, {
          detail: `${d.carrier} ${d.trackingNumber}`,
        });
      break;
    }
    case 'ShipmentDelivered':
    case 'ShipmentReturned': {
      const d = e.data;
      const delivered = e.type === 'ShipmentDelivered';
      const at = e.type === 'ShipmentDelivered' ? e.data.deliveredAt : e.data.returnedAt;
      const reason = e.type === 'ShipmentReturned' ? e.data.reason : null;
      await tx.query(
        delivered
          ? 'UPDATE rm_order_shipments SET delivered_at = $2 WHERE shipment_id = $1'
          : 'UPDATE rm_order_shipments SET returned_at = $2, return_reason = $3 WHERE shipment_id = $1',
        delivered ? [d.shipmentId, at] : [d.shipmentId, at, reason],
      );
      await itemStage(d.orderItemIds, delivered ? 'delivered' : 'returned', at);
      for (const [n, id] of d.orderItemIds.entries())
        await line(n, id, delivered ? 'delivered' : 'returned', at, {
          ...(reason ? { detail: reason } : {}),
        });
      break;
    }
    case 'OrderHeld':
      await tx.query(
        `INSERT INTO rm_order_holds (hold_id, stream_id, reason, held_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING`,
        [e.data.holdId, s.streamId, e.data.reason, e.data.heldAt],
      );
      await line(0, null, 'on_hold', e.data.heldAt, { detail: e.data.reason });
      break;
    case 'OrderReleased':
      await tx.query(
        'UPDATE rm_order_holds SET released_at = $2 WHERE hold_id = $1 AND released_at IS NULL',
        [e.data.holdId, e.data.releasedAt],
      );
      await line(0, null, 'released', e.data.releasedAt);
      break;
    case 'OrderItemReprintRequested': {
      const d = e.data;
      await itemStage([d.orderItemId], 'reprinting', d.requestedAt, null);
      await line(0, d.orderItemId, 'reprinting', d.requestedAt, {
        detail: d.note ? `${d.reason}: ${d.note}` : d.reason,
      });
      break;
    }
    case 'OrderItemReprinted': {
      const d = e.data;
      if (d.matches) await itemStage([d.orderItemId], 'ready', d.reprintedAt);
      await line(0, d.orderItemId, d.matches ? 'ready' : 'reprint_differs', d.reprintedAt, {
        ...(d.records ? { detail: `records ${d.records.join(', ')}` } : {}),
      });
      // a file of some records: kept beside the item's files, by its reprint
      if (d.file && d.records)
        await tx.query(
          'UPDATE rm_order_items SET reprints = reprints || $2::jsonb WHERE order_item_id = $1',
          [
            d.orderItemId,
            JSON.stringify([
              { reprintId: d.reprintId, records: d.records, matches: d.matches, ...d.file },
            ]),
          ],
        );
      break;
    }
    case 'OrderItemBatched': {
      const d = e.data;
      await itemStage([d.orderItemId], 'batched', d.batchedAt);
      await line(0, d.orderItemId, 'batched', d.batchedAt, { detail: `press run ${d.batchId}` });
      break;
    }
    case 'OrderItemUnbatched': {
      const d = e.data;
      await tx.query(
        `UPDATE rm_order_items SET stage = 'ready', stage_at = $2
         WHERE order_item_id = $1 AND stage = 'batched'`,
        [d.orderItemId, d.unbatchedAt],
      );
      await line(0, d.orderItemId, 'ready', d.unbatchedAt, {
        detail: `left press run ${d.batchId}: ${d.reason}`,
      });
      break;
    }
    case 'OrderWentLate':
      await tx.query('UPDATE rm_orders SET late_at = $2 WHERE stream_id = $1', [
        s.streamId,
        e.data.noticedAt,
      ]);
      await line(0, null, 'late', e.data.noticedAt, { detail: `ship-by ${e.data.shipBy}` });
      break;
    default:
      return;
  }
  if (e.type === 'OrderHeld' || e.type === 'OrderReleased') {
    // time on hold moves the ship-by time on; the clock is paused while a hold is open
    await tx.query(
      `UPDATE rm_orders o SET holds_open = h.open, held_since = h.since, held_ms = h.closed
       FROM (SELECT count(*) FILTER (WHERE released_at IS NULL)::int AS open,
                    min(held_at) FILTER (WHERE released_at IS NULL) AS since,
                    coalesce(sum(extract(epoch FROM released_at - held_at) * 1000)
                      FILTER (WHERE released_at IS NOT NULL), 0)::bigint AS closed
             FROM rm_order_holds WHERE stream_id = $1) h
       WHERE o.stream_id = $1`,
      [s.streamId],
    );
  }
}

// ---- queries ----

export interface TimelineRow {
  order_item_id: string | null;
  stage: string;
  at: Date;
  via: string | null;
  station: string | null;
  detail: string | null;
}
export interface ShipmentRow {
  shipment_id: string;
  carrier: string;
  tracking_number: string;
  tracking_url: string | null;
  order_item_ids: string[];
  facility_id: string | null;
  shipped_at: Date;
  delivered_at: Date | null;
  returned_at: Date | null;
  return_reason: string | null;
}
export interface HoldRow {
  hold_id: string;
  reason: string;
  held_at: Date;
  released_at: Date | null;
}

/** An order's shop-floor story: its timeline, shipments and holds, oldest first. */
export async function productionOf(pool: pg.Pool, streamId: string) {
  const [timeline, shipments, holds] = await Promise.all([
    pool.query<TimelineRow>(
      `SELECT order_item_id, stage, at, via, station, detail FROM rm_order_timeline
       WHERE stream_id = $1 ORDER BY revision, n`,
      [streamId],
    ),
    pool.query<ShipmentRow>(
      'SELECT * FROM rm_order_shipments WHERE stream_id = $1 ORDER BY shipped_at, shipment_id',
      [streamId],
    ),
    pool.query<HoldRow>(
      'SELECT * FROM rm_order_holds WHERE stream_id = $1 ORDER BY held_at, hold_id',
      [streamId],
    ),
  ]);
  return { timeline: timeline.rows, shipments: shipments.rows, holds: holds.rows };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The order items a scanned code names in a label: the order item id the slug barcode
 * holds by default, or the barcode value set for an item. Another label's items are not
 * seen.
 */
export async function itemsByCode(
  pool: pg.Pool,
  labelId: string,
  code: string,
): Promise<{ order_item_id: string; stream_id: string }[]> {
  const byValue = async () =>
    (
      await pool.query<{ order_item_id: string; stream_id: string }>(
        `SELECT order_item_id, stream_id FROM rm_order_items
         WHERE label_id = $1 AND barcode IS NOT NULL AND barcode->>'value' = $2 LIMIT 2`,
        [labelId, code],
      )
    ).rows;
  if (!UUID.test(code)) return byValue();
  const byId = await pool.query<{ order_item_id: string; stream_id: string }>(
    // whether it is still the item's code, the order's decider says
    'SELECT order_item_id, stream_id FROM rm_order_items WHERE order_item_id = $1 AND label_id = $2',
    [code.toLowerCase(), labelId],
  );
  return byId.rows.length ? byId.rows : byValue();
}

/**
 * Orders whose ship-by time (moved on by time on hold) has passed unshipped, lateness not yet
 * recorded.
 */
export async function unshippedPastShipBy(
  pool: pg.Pool,
  limit: number,
): Promise<{ stream_id: string }[]> {
  const r = await pool.query<{ stream_id: string }>(
    `SELECT stream_id FROM rm_orders
     WHERE ship_by IS NOT NULL AND late_at IS NULL AND status <> 'cancelled'
       AND (stage IS NULL OR stage NOT IN ${SHIPPED})
       AND ship_by < now() AND holds_open = 0
       -- no clock while a proof waits (order-approvals.ts moves ship_by at the approval)
       AND NOT EXISTS (SELECT 1 FROM rm_order_items i WHERE i.stream_id = rm_orders.stream_id
         AND i.approval IS NOT NULL AND i.approval->>'status' NOT IN ('approved', 'waived', 'expired'))
       AND ship_by + held_ms * interval '1 millisecond' < now()
     ORDER BY ship_by LIMIT $1`,
    [limit],
  );
  return r.rows;
}

/** The SQL condition of an order that went late and is still not shipped. */
export const LATE_NOW = `late_at IS NOT NULL AND status <> 'cancelled' AND (stage IS NULL OR stage NOT IN ${SHIPPED})`;

export interface BoardColumn {
  stage: string;
  items: number;
  /** the item longest in this stage */
  oldest: { orderId: string; labelId: string; itemId: string; since: Date } | undefined;
}

/** Where the items are on the shop floor: per stage, how many and the longest waiting. */
export async function productionBoard(
  pool: pg.Pool,
  stages: readonly string[],
  labelId?: string,
  facilityId?: string,
): Promise<BoardColumn[]> {
  // a facility's items are counted where they are (its index); a label's, from the counts kept
  const counts = facilityId
    ? await pool.query<{ stage: string; n: number }>(
        `SELECT stage, count(*)::int AS n FROM rm_order_items
         WHERE facility_id = $1 AND stage IS NOT NULL GROUP BY stage`,
        [facilityId],
      )
    : await pool.query<{ stage: string; n: number }>(
        `SELECT stage, sum(n)::int AS n FROM rm_stage_counts
         WHERE ($1::uuid IS NULL OR label_id = $1) GROUP BY stage`,
        [labelId ?? null],
      );
  const columns: BoardColumn[] = [];
  for (const stage of stages) {
    const oldest = await pool.query<{
      order_id: string;
      label_id: string;
      item_id: string;
      stage_at: Date;
    }>(
      `SELECT order_id, label_id, item_id, stage_at FROM rm_order_items
       WHERE stage = $1 AND stage <> 'delivered' AND stage IS NOT NULL
         AND ($2::uuid IS NULL OR label_id = $2) AND ($3::uuid IS NULL OR facility_id = $3)
       ORDER BY stage_at LIMIT 1`,
      [stage, labelId ?? null, facilityId ?? null],
    );
    const o = oldest.rows[0];
    columns.push({
      stage,
      items: counts.rows.find((c) => c.stage === stage)?.n ?? 0,
      oldest: o
        ? { orderId: o.order_id, labelId: o.label_id, itemId: o.item_id, since: o.stage_at }
        : undefined,
    });
  }
  return columns;
}

/** Late orders (still unshipped) per label and stage, for the overview and the metrics. */
export async function lateCounts(
  pool: pg.Pool,
  labelId?: string,
): Promise<{ labelId: string; stage: string; count: number }[]> {
  const r = await pool.query<{ label_id: string; stage: string | null; n: number }>(
    `SELECT label_id, CASE WHEN holds_open > 0 THEN 'on_hold' ELSE stage END AS stage,
            count(*)::int AS n
     FROM rm_orders WHERE ${LATE_NOW} AND ($1::uuid IS NULL OR label_id = $1)
     GROUP BY 1, 2 ORDER BY 1, 2`,
    [labelId ?? null],
  );
  return r.rows.map((x) => ({ labelId: x.label_id, stage: x.stage ?? 'rendering', count: x.n }));
}

/** Items per stage over every label, for the metrics. */
export async function itemsPerStage(pool: pg.Pool): Promise<Map<string, number>> {
  const r = await pool.query<{ stage: string; n: number }>(
    'SELECT stage, sum(n)::int AS n FROM rm_stage_counts GROUP BY stage',
  );
  return new Map(r.rows.map((x) => [x.stage, x.n]));
}

/**
 * Items of a label that wait for a press run: ready (on the shop floor, not batched),
 * of an order neither cancelled nor on hold; oldest first. `sku` and `readyBefore` narrow it.
 */
export async function readyItems(
  pool: pg.Pool,
  labelId: string,
  f: { sku?: string | undefined; readyBefore?: Date | undefined; facilityId?: string | undefined },
  limit: number,
): Promise<{ order_item_id: string; stream_id: string; stage_at: Date }[]> {
  const r = await pool.query<{ order_item_id: string; stream_id: string; stage_at: Date }>(
    `SELECT i.order_item_id, i.stream_id, i.stage_at FROM rm_order_items i
     JOIN rm_orders o ON o.stream_id = i.stream_id
     WHERE i.stage = 'ready' AND i.label_id = $1 AND o.status <> 'cancelled' AND o.holds_open = 0
       AND (i.approval IS NULL OR i.approval->>'status' IN ('approved', 'waived'))
       AND ($2::text IS NULL OR i.sku = $2) AND ($3::timestamptz IS NULL OR i.stage_at <= $3)
       AND ($5::uuid IS NULL OR i.facility_id = $5)
     ORDER BY i.stage_at, i.order_item_id LIMIT $4`,
    [labelId, f.sku ?? null, f.readyBefore ?? null, limit, f.facilityId ?? null],
  );
  return r.rows;
}

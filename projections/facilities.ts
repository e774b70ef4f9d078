import type pg from 'pg';
import { type FacilitySettings, facilityEvents } from '../src/domain/facility/events.ts';
import type { FacilityForRouting } from '../src/domain/facility/routing.ts';
import { orderEvents } from '../src/domain/order/events.ts';
import { type Position, START } from '../src/eventstore/port.ts';
import type { Projection } from './projection.ts';

/**
 * The label's production facilities as they are now; with the orders read model's
 * routed items, what routing reads (loads per working day, open items) and the
 * facility filters of lists and the board.
 */
export const facilitiesProjection: Projection = {
  name: 'facilities',
  tables: ['rm_facilities'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_facilities (
      facility_id   uuid PRIMARY KEY,
      label_id      uuid NOT NULL,
      settings      jsonb NOT NULL,
      paused        boolean NOT NULL DEFAULT false,
      key_prefix    text NOT NULL,
      registered_at timestamptz NOT NULL,
      updated_at    timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS rm_facilities_label ON rm_facilities (label_id, registered_at);`,
  handles: new Set(facilityEvents.types),
  async apply(tx, events) {
    for (const stored of events) {
      const e = facilityEvents.deserialize(stored);
      const id = stored.streamId.slice('Facility-'.length);
      switch (e.type) {
        case 'FacilityRegistered':
          await tx.query(
            `INSERT INTO rm_facilities (facility_id, label_id, settings, key_prefix, registered_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT DO NOTHING`,
            [
              id,
              e.data.labelId,
              JSON.stringify(e.data.settings),
              e.data.apiKey.prefix,
              e.data.registeredAt,
            ],
          );
          break;
        case 'FacilityUpdated':
          await tx.query(
            'UPDATE rm_facilities SET settings = $2, updated_at = $3 WHERE facility_id = $1',
            [id, JSON.stringify(e.data.settings), e.data.updatedAt],
          );
          break;
        case 'FacilityPaused':
        case 'FacilityResumed':
          await tx.query(
            'UPDATE rm_facilities SET paused = $2, updated_at = $3 WHERE facility_id = $1',
            [
              id,
              e.type === 'FacilityPaused',
              e.type === 'FacilityPaused' ? e.data.pausedAt : e.data.resumedAt,
            ],
          );
          break;
      }
    }
  },
};

/**
 * Where items are made and whether they are still to ship: what routing counts (items per
 * facility and working day, open items). Its own small projection of the few events it
 * needs, so that it has taken a routing within milliseconds, whatever the orders read
 * model has still to do: routing waits for it before each decision.
 */
export const facilityLoadsProjection: Projection = {
  name: 'facility-loads',
  tables: ['rm_item_routes'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_item_routes (
      order_item_id uuid PRIMARY KEY,
      stream_id     text NOT NULL,
      facility_id   uuid,
      day           text COLLATE "C",
      open          boolean NOT NULL DEFAULT true
    );
    CREATE INDEX IF NOT EXISTS rm_item_routes_day ON rm_item_routes (facility_id, day)
      WHERE facility_id IS NOT NULL;
    CREATE INDEX IF NOT EXISTS rm_item_routes_open ON rm_item_routes (facility_id)
      WHERE facility_id IS NOT NULL AND open;
    CREATE INDEX IF NOT EXISTS rm_item_routes_stream ON rm_item_routes (stream_id);`,
  handles: new Set(['ItemRouted', 'OrderShipped', 'ShipmentReturned', 'OrderCancelled']),
  async apply(tx, events) {
    for (const stored of events) {
      const e = orderEvents.deserialize(stored);
      switch (e.type) {
        case 'ItemRouted':
          await tx.query(
            `INSERT INTO rm_item_routes (order_item_id, stream_id, facility_id, day)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (order_item_id) DO UPDATE SET facility_id = $3, day = $4`,
            [e.data.orderItemId, stored.streamId, e.data.facilityId, e.data.day],
          );
          break;
        case 'OrderShipped':
        case 'ShipmentReturned':
          // shipped, it leaves its facility's load; back, it is to be sent again
          await tx.query(
            'UPDATE rm_item_routes SET open = $2 WHERE order_item_id = ANY($1::uuid[])',
            [e.data.orderItemIds, e.type === 'ShipmentReturned'],
          );
          break;
        case 'OrderCancelled':
          await tx.query('UPDATE rm_item_routes SET open = false WHERE stream_id = $1', [
            stored.streamId,
          ]);
          break;
      }
    }
  },
};

export interface FacilityRow {
  facility_id: string;
  label_id: string;
  settings: FacilitySettings;
  paused: boolean;
  key_prefix: string;
  registered_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'facility_id, label_id, settings, paused, key_prefix, registered_at, updated_at FROM rm_facilities';

export async function facilityRow(
  db: Pick<pg.Pool, 'query'>,
  facilityId: string,
): Promise<(FacilityRow & { name: string }) | undefined> {
  const r = await db.query<FacilityRow>(`SELECT ${COLUMNS} WHERE facility_id = $1`, [facilityId]);
  const row = r.rows[0];
  return row ? { ...row, name: row.settings.name } : undefined;
}

/** Whether a label has a facility (one index probe). */
export async function hasFacilities(db: Pick<pg.Pool, 'query'>, labelId: string): Promise<boolean> {
  const r = await db.query<{ yes: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM rm_facilities WHERE label_id = $1) AS yes',
    [labelId],
  );
  return r.rows[0]?.yes === true;
}

export async function facilitiesOf(
  db: Pick<pg.Pool, 'query'>,
  labelId: string,
): Promise<FacilityRow[]> {
  const r = await db.query<FacilityRow>(
    `SELECT ${COLUMNS} WHERE label_id = $1 ORDER BY registered_at, facility_id`,
    [labelId],
  );
  return r.rows;
}

/**
 * The label's facilities as routing sees them: their settings, the items routed to each
 * per working day from `since` (the earliest "today" of their time zones) and their
 * items not yet shipped, with the place in the log the counts are as of (they are read
 * with it, in one statement: routing adds what it appended since). Two queries, whatever
 * the number of facilities.
 */
export async function facilitiesForRouting(
  db: Pick<pg.Pool, 'query'>,
  labelId: string,
  since: string,
): Promise<{ facilities: FacilityForRouting[]; asOf: Position }> {
  const rows = await facilitiesOf(db, labelId);
  // a day's count from its index, the open items from theirs, and the counts' checkpoint
  const loads = await db.query<{
    facility_id: string | null;
    day: string | null;
    n: string;
    m: string;
  }>(
    `SELECT facility_id::text, day, count(*)::text AS n, '0' AS m FROM rm_item_routes
       WHERE facility_id = ANY($1::uuid[]) AND day >= $2 GROUP BY facility_id, day
     UNION ALL
     SELECT facility_id::text, NULL, '0', count(*)::text FROM rm_item_routes
       WHERE facility_id = ANY($1::uuid[]) AND open GROUP BY facility_id
     UNION ALL
     SELECT NULL, NULL, commit_pos::text, prepare_pos::text FROM projection_checkpoints
       WHERE name = '${facilityLoadsProjection.name}'`,
    [rows.map((r) => r.facility_id), since],
  );
  const checkpoint = loads.rows.find((l) => l.facility_id === null);
  const asOf = checkpoint ? { commit: BigInt(checkpoint.n), prepare: BigInt(checkpoint.m) } : START;
  // each facility's loads in one pass: linear in the loads, not in facilities times loads
  const loadsOf = new Map<string, { byDay: Map<string, number>; open: number }>();
  for (const l of loads.rows) {
    if (l.facility_id === null) continue;
    let of = loadsOf.get(l.facility_id);
    if (!of) {
      of = { byDay: new Map(), open: 0 };
      loadsOf.set(l.facility_id, of);
    }
    if (l.day) of.byDay.set(l.day, Number(l.n));
    else of.open += Number(l.m);
  }
  const facilities = rows.map((r) => {
    const { byDay, open } = loadsOf.get(r.facility_id) ?? { byDay: new Map(), open: 0 };
    const s = r.settings;
    return {
      facilityId: r.facility_id,
      name: s.name,
      country: s.country,
      timezone: s.timezone,
      paused: r.paused,
      printMethods: s.capabilities.printMethods,
      maxItemMm: s.capabilities.maxItemMm,
      itemsPerDay: s.capacity.itemsPerDay,
      workingDays: s.workingDays,
      holidays: s.holidays,
      routedByDay: byDay,
      open,
    };
  });
  return { facilities, asOf };
}

/** Items at a facility that are not on the press yet (routed, not batched or beyond). */
export async function itemsToMoveOff(
  db: Pick<pg.Pool, 'query'>,
  facilityId: string,
): Promise<{ order_item_id: string; stream_id: string }[]> {
  const r = await db.query<{ order_item_id: string; stream_id: string }>(
    `SELECT i.order_item_id, i.stream_id FROM rm_order_items i JOIN rm_orders o USING (stream_id)
     WHERE i.facility_id = $1 AND coalesce(i.stage, 'ready') = 'ready' AND o.status <> 'cancelled'
     ORDER BY o.received_at, i.position`,
    [facilityId],
  );
  return r.rows;
}

/** The label's items waiting as unroutable. */
export async function unroutableItems(
  db: Pick<pg.Pool, 'query'>,
  labelId: string,
): Promise<{ order_item_id: string; stream_id: string }[]> {
  const r = await db.query<{ order_item_id: string; stream_id: string }>(
    `SELECT i.order_item_id, i.stream_id FROM rm_order_items i JOIN rm_orders o USING (stream_id)
     WHERE i.label_id = $1 AND i.routing = 'unroutable' AND o.status <> 'cancelled'
     ORDER BY o.received_at, i.position`,
    [labelId],
  );
  return r.rows;
}

/** Per facility: items routed, capacity taken today (in its time zone), items late. */
export async function facilityMetrics(db: Pick<pg.Pool, 'query'>) {
  const r = await db.query<{
    facility_id: string;
    label_id: string;
    name: string;
    routed: string;
    today: string;
    per_day: number;
    late: string;
  }>(
    `SELECT f.facility_id, f.label_id, f.settings->>'name' AS name,
            count(i.order_item_id) AS routed,
            count(i.order_item_id) FILTER (
              WHERE i.routed_day = to_char(now() AT TIME ZONE (f.settings->>'timezone'), 'YYYY-MM-DD')) AS today,
            (f.settings->'capacity'->>'itemsPerDay')::int AS per_day,
            count(i.order_item_id) FILTER (WHERE o.late_at IS NOT NULL
              AND coalesce(i.stage, '') NOT IN ('shipped', 'delivered')) AS late
     FROM rm_facilities f
     LEFT JOIN rm_order_items i ON i.facility_id = f.facility_id
     LEFT JOIN rm_orders o ON o.stream_id = i.stream_id
     GROUP BY f.facility_id`,
  );
  return r.rows.map((x) => ({
    facilityId: x.facility_id,
    labelId: x.label_id,
    name: x.name,
    routed: Number(x.routed),
    capacityUsedToday: x.per_day > 0 ? Number(x.today) / x.per_day : 0,
    late: Number(x.late),
  }));
}

/** How many facilities a label has registered. */
export async function facilityCount(db: Pick<pg.Pool, 'query'>, labelId: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM rm_facilities WHERE label_id = $1',
    [labelId],
  );
  return r.rows[0]?.n ?? 0;
}

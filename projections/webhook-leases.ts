import { hostname } from 'node:os';
import type pg from 'pg';
import { processAlive } from '../src/processes.ts';
import type { WebhookMessage } from '../src/webhooks/messages.ts';

/*
 * The webhook queue's leases (the queue is webhook-queue.ts, its table's owner): what the
 * dispatcher (src/webhooks/delivery/dispatcher.ts) takes to send, and frees. A lease is
 * the only change the dispatcher makes to the queue; the rest comes from the log.
 */

/** One leased delivery: a message to an endpoint, and which attempt this is. */
export interface LeasedDelivery {
  delivery_id: string;
  run: number;
  integration_id: string;
  label_id: string;
  message: WebhookMessage;
  attempt: number;
  rate_per_second: number | null;
  /** the trace of the event the message tells of, when it was traced */
  traceparent: string | null;
  ordered: boolean;
}

/** rows looked at per claim, before each endpoint's share is taken */
const LEASE_LOOK_AHEAD = 2_000;

export interface LeaseRequest {
  /** rows to take at most */
  room: number;
  leaseMs: number;
  /** the dispatcher, as its leases name it */
  by: string;
  /** what this dispatcher is sending now, per endpoint */
  sending: ReadonlyMap<string, number>;
  /** delivery runs (`id:run`) this dispatcher ended and recorded, not read by the queue yet */
  settled: string[];
}

/**
 * Leases up to `room` due rows, each endpoint at most its free share: `maxInFlight`
 * minus its leased rows (ordered: its oldest row alone, once nothing of it is leased);
 * a rate-limited endpoint at most a second's worth. Also how long until the next row
 * it did not take falls due (ms; null: none), read in the same query.
 */
export async function leaseDue(
  db: pg.Pool,
  q: LeaseRequest,
): Promise<{ rows: LeasedDelivery[]; ms: string | null }> {
  const r = await db.query<{ rows: LeasedDelivery[]; ms: string | null }>(
    `WITH due AS (
         SELECT delivery_id, run, integration_id, commit_pos, prepare_pos, due_at FROM webhook_queue
         WHERE due_at <= now() AND (leased_until IS NULL OR leased_until < now())
         ORDER BY due_at LIMIT ${LEASE_LOOK_AHEAD}
       ), mine AS (
         SELECT * FROM unnest($4::uuid[], $5::int[]) AS m(integration_id, n)
       ), busy AS (
         -- what other processes have leased, and what this one is sending (its leases of
         -- attempts already recorded are not busy: the queue just has not read them yet)
         SELECT integration_id, sum(n) AS n FROM (
           SELECT integration_id, count(*) AS n FROM webhook_queue
           WHERE leased_until IS NOT NULL AND leased_until >= now() AND leased_by <> $3
             AND integration_id IN (SELECT integration_id FROM due)
           GROUP BY integration_id
           UNION ALL SELECT integration_id, n FROM mine) b
         GROUP BY integration_id
       ), ranked AS (
         SELECT d.delivery_id, d.run, d.due_at, e.ordered, d.integration_id, d.commit_pos,
           d.prepare_pos,
           row_number() OVER (PARTITION BY d.integration_id
                              ORDER BY d.commit_pos, d.prepare_pos) AS n,
           CASE WHEN e.ordered THEN 1
                ELSE LEAST(e.max_in_flight, COALESCE(ceil(e.rate_per_second)::int, e.max_in_flight))
           END - COALESCE(b.n, 0) AS share
         FROM due d JOIN webhook_queue_endpoints e USING (integration_id)
         LEFT JOIN busy b USING (integration_id)
         WHERE e.enabled
       ), picked AS (
         SELECT q.delivery_id, q.run FROM webhook_queue q
         JOIN ranked k ON k.delivery_id = q.delivery_id AND k.run = q.run
         WHERE k.n <= k.share
           AND (NOT k.ordered OR NOT EXISTS (
             SELECT 1 FROM webhook_queue o WHERE o.integration_id = k.integration_id
               AND (o.commit_pos, o.prepare_pos) < (k.commit_pos, k.prepare_pos)
               AND o.delivery_id || ':' || o.run <> ALL($6::text[])))
         ORDER BY k.due_at LIMIT $1
         FOR UPDATE OF q SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_queue q SET leased_until = now() + $2 * interval '1 millisecond',
           leased_by = $3
         FROM picked p, webhook_queue_endpoints e
         WHERE q.delivery_id = p.delivery_id AND q.run = p.run AND e.integration_id = q.integration_id
           AND (q.leased_until IS NULL OR q.leased_until < now())
         RETURNING q.delivery_id, q.run, q.integration_id, q.label_id, q.message, q.attempt,
           q.traceparent, e.rate_per_second, e.ordered
       )
       -- when the next row not leased now falls due (this query's own leases are not seen
       -- in its snapshot: its rows are left out by name)
       SELECT COALESCE((SELECT json_agg(c) FROM claimed c), '[]'::json) AS rows,
         (SELECT extract(epoch FROM min(GREATEST(due_at, COALESCE(leased_until, due_at))) - now()) * 1000
          FROM webhook_queue w
          WHERE NOT EXISTS (SELECT 1 FROM claimed c
                            WHERE c.delivery_id = w.delivery_id AND c.run = w.run)) AS ms`,
    [q.room, q.leaseMs, q.by, [...q.sending.keys()], [...q.sending.values()], q.settled],
  );
  return r.rows[0]!;
}

/** Who holds live leases among this host's processes (`<host>-<pid>-...`). */
async function leaseHolders(db: pg.Pool, hostPrefix: string): Promise<string[]> {
  const r = await db.query<{ by: string }>(
    `SELECT DISTINCT leased_by AS by FROM webhook_queue
     WHERE leased_until IS NOT NULL AND leased_until >= now() AND leased_by LIKE $1`,
    [`${hostPrefix}%`],
  );
  return r.rows.map((x) => x.by);
}

/** Frees every lease of these holders at once. */
async function freeLeases(db: pg.Pool, holders: string[]): Promise<void> {
  await db.query(
    `UPDATE webhook_queue SET leased_until = NULL, leased_by = NULL WHERE leased_by = ANY($1)`,
    [holders],
  );
}

/** Where the queue has read the log up to (undefined before its first page). */
export async function queueCheckpoint(
  db: pg.Pool,
): Promise<{ commit: string; prepare: string } | undefined> {
  const r = await db.query<{ commit: string; prepare: string }>(
    `SELECT commit_pos::text AS commit, prepare_pos::text AS prepare
     FROM projection_checkpoints WHERE name = 'webhook-queue'`,
  );
  return r.rows[0];
}

/**
 * Leases taken by processes of this host that are gone (killed, crashed) are freed at
 * once, not when they run out: what they were sending goes out again now, with the same
 * webhook-id. Answers how many holders were freed (`self` is the caller's own).
 */
export async function freeLeasesOfGoneProcesses(db: pg.Pool, self: string): Promise<number> {
  const host = hostname();
  const gone = (await leaseHolders(db, `${host}-`)).filter((by) => {
    const pid = Number(by.slice(host.length + 1).split('-')[0]);
    return by !== self && Number.isInteger(pid) && !processAlive(pid);
  });
  if (gone.length > 0) await freeLeases(db, gone);
  return gone.length;
}

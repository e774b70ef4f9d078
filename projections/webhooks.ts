import type pg from 'pg';
import { auditHeadEvents } from '../src/domain/audit/events.ts';
import { orderEvents } from '../src/domain/order/events.ts';
import { shopIntegrationEvents } from '../src/domain/shop-integration/events.ts';
import { webhookDeliveryEvents } from '../src/domain/webhook-delivery/events.ts';
import type { Position, RecordedEvent } from '../src/eventstore/port.ts';
import {
  TOLD,
  treeHeadMessage,
  type WebhookMessage,
  webhookMessage,
} from '../src/webhooks/messages.ts';
import { ENDPOINT_EVENTS, itemFacilities, orderRefs } from './order-refs.ts';
import type { Projection } from './projection.ts';

/**
 * What shops are told: the pull feed (every order message, in log order, per label and
 * integration) and the deliveries log (each delivery's attempts, per endpoint).
 */
/** where each order item is made, for the shop-floor messages */
const facilities = itemFacilities('rm_webhook_item_facilities');

export const webhooksProjection: Projection = {
  name: 'webhooks',
  // 2: the label's daily tree heads in the feed (to_label), deliveries of no order
  version: 2,
  tables: [
    'rm_webhook_orders',
    'rm_webhook_feed',
    'rm_webhook_deliveries',
    'rm_webhook_endpoints',
    'rm_webhook_item_facilities',
  ],
  schema: `
    ${facilities.schema}
    CREATE TABLE IF NOT EXISTS rm_webhook_orders (
      stream_id      text PRIMARY KEY,
      ref            json NOT NULL
    );
    CREATE TABLE IF NOT EXISTS rm_webhook_feed (
      commit_pos     bigint NOT NULL,
      prepare_pos    bigint NOT NULL,
      label_id       uuid NOT NULL,
      integration_id uuid,
      -- for every shop of the label (the audit log's daily head), not one integration's
      to_label       boolean NOT NULL DEFAULT false,
      message_id     text NOT NULL UNIQUE,
      message        json NOT NULL,
      PRIMARY KEY (commit_pos, prepare_pos)
    );
    CREATE INDEX IF NOT EXISTS rm_webhook_feed_label
      ON rm_webhook_feed (label_id, commit_pos, prepare_pos);
    CREATE TABLE IF NOT EXISTS rm_webhook_deliveries (
      delivery_id     text PRIMARY KEY,
      integration_id  uuid NOT NULL,
      label_id        uuid NOT NULL,
      message_id      text NOT NULL,
      message_type    text NOT NULL,
      order_id        text,
      status          text NOT NULL,
      runs            int NOT NULL,
      attempts        int NOT NULL,
      last_attempt    jsonb NOT NULL,
      log             jsonb NOT NULL,
      first_at        timestamptz NOT NULL,
      last_at         timestamptz NOT NULL,
      delivered_at    timestamptz
    );
    CREATE INDEX IF NOT EXISTS rm_webhook_deliveries_endpoint
      ON rm_webhook_deliveries (integration_id, status, first_at);
    CREATE INDEX IF NOT EXISTS rm_webhook_deliveries_page
      ON rm_webhook_deliveries (integration_id, first_at DESC, delivery_id);
    CREATE INDEX IF NOT EXISTS rm_webhook_deliveries_status_page
      ON rm_webhook_deliveries (integration_id, status, first_at DESC, delivery_id);
    CREATE TABLE IF NOT EXISTS rm_webhook_endpoints (
      integration_id  uuid PRIMARY KEY,
      url             text,
      state           text,
      disabled_reason text,
      last_success_at timestamptz,
      failing_since   timestamptz
    );`,
  handles: new Set([
    ...TOLD,
    ...webhookDeliveryEvents.types,
    ...ENDPOINT_EVENTS,
    ...auditHeadEvents.types,
  ]),
  async apply(tx, events) {
    for (const e of events) {
      if (webhookDeliveryEvents.has(e.type)) await applyDelivery(tx, e);
      else if (ENDPOINT_EVENTS.has(e.type)) await applyEndpoint(tx, e);
      else if (auditHeadEvents.has(e.type)) await applyTreeHead(tx, e);
      else await applyOrder(tx, e);
    }
  },
};

async function applyEndpoint(tx: pg.PoolClient, stored: RecordedEvent) {
  const e = shopIntegrationEvents.deserialize(stored);
  const id = e.data.integrationId;
  if (e.type === 'WebhookEndpointSet')
    await tx.query(
      `INSERT INTO rm_webhook_endpoints (integration_id, url, state) VALUES ($1, $2, 'enabled')
       ON CONFLICT (integration_id) DO UPDATE SET url = $2, state = 'enabled', disabled_reason = NULL`,
      [id, e.data.url],
    );
  else if (e.type === 'WebhookEndpointDisabled')
    await tx.query(
      `UPDATE rm_webhook_endpoints SET state = 'disabled', disabled_reason = $2 WHERE integration_id = $1`,
      [id, `${e.data.reason}: ${e.data.detail}`],
    );
  else if (e.type === 'WebhookEndpointEnabled')
    await tx.query(
      `UPDATE rm_webhook_endpoints SET state = 'enabled', disabled_reason = NULL WHERE integration_id = $1`,
      [id],
    );
}

/** Attempts kept per delivery in its log (the counts keep counting). */
const LOG_LENGTH = 20;

const refOf = orderRefs('rm_webhook_orders');

async function applyOrder(tx: pg.PoolClient, stored: RecordedEvent) {
  const event = orderEvents.deserialize(stored);
  const ref = await refOf(tx, stored, event);
  if (!ref) return;
  await facilities.note(tx, event);
  const made = webhookMessage(ref, stored, event);
  if (!made) return;
  const message = await facilities.added(tx, made);
  await addToFeed(tx, stored, ref.labelId, ref.integrationId ?? null, message);
}

/** The label's daily tree head: in the feed of every shop of the label. */
async function applyTreeHead(tx: pg.PoolClient, stored: RecordedEvent) {
  const e = auditHeadEvents.deserialize(stored);
  await addToFeed(tx, stored, e.data.labelId, null, treeHeadMessage(stored, e));
}

const addToFeed = (
  tx: pg.PoolClient,
  stored: RecordedEvent,
  labelId: string,
  integrationId: string | null,
  message: WebhookMessage,
) =>
  tx.query(
    `INSERT INTO rm_webhook_feed (commit_pos, prepare_pos, label_id, integration_id, to_label,
       message_id, message)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    [
      stored.position.commit.toString(),
      stored.position.prepare.toString(),
      labelId,
      integrationId,
      message.type === 'audit.tree_head',
      message.id,
      JSON.stringify(message),
    ],
  );

/** One attempt of a delivery, as its log keeps it. */
export interface DeliveryAttempt {
  run: number;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  latencyMs: number;
  response: string;
  outcome: 'delivered' | 'retrying' | 'failed' | 'gone';
}

async function applyDelivery(tx: pg.PoolClient, stored: RecordedEvent) {
  const e = webhookDeliveryEvents.deserialize(stored);
  if (e.type === 'WebhookResendRequested') {
    await tx.query(
      `UPDATE rm_webhook_deliveries SET status = 'pending', runs = GREATEST(runs, $2 + 1)
       WHERE delivery_id = $1`,
      [e.data.deliveryId, e.data.run],
    );
    return;
  }
  const d = e.data;
  const attempt: DeliveryAttempt = {
    run: d.run,
    attempt: d.attempt,
    at: d.attemptedAt,
    status: d.status ?? null,
    error: d.error ?? null,
    latencyMs: d.latencyMs,
    response: d.response,
    outcome: d.outcome,
  };
  const status =
    d.outcome === 'delivered' ? 'delivered' : d.outcome === 'retrying' ? 'retrying' : 'failed';
  await tx.query(
    `INSERT INTO rm_webhook_deliveries AS w (delivery_id, integration_id, label_id, message_id,
       message_type, order_id, status, runs, attempts, last_attempt, log, first_at, last_at,
       delivered_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8 + 1, 1, $9, jsonb_build_array($9::jsonb), $10, $10,
       CASE WHEN $7 = 'delivered' THEN $10::timestamptz END)
     ON CONFLICT (delivery_id) DO UPDATE SET
       status = CASE WHEN w.status = 'delivered' THEN w.status ELSE EXCLUDED.status END,
       runs = GREATEST(w.runs, EXCLUDED.runs),
       attempts = w.attempts + 1,
       last_attempt = EXCLUDED.last_attempt,
       log = (SELECT COALESCE(jsonb_agg(v ORDER BY i), '[]'::jsonb)
              FROM jsonb_array_elements(w.log) WITH ORDINALITY AS t(v, i)
              WHERE i > jsonb_array_length(w.log) - ${LOG_LENGTH - 1})
             || jsonb_build_array(EXCLUDED.last_attempt),
       last_at = EXCLUDED.last_at,
       delivered_at = COALESCE(w.delivered_at, EXCLUDED.delivered_at)`,
    [
      d.deliveryId,
      d.integrationId,
      d.labelId,
      d.messageId,
      d.messageType,
      d.orderId ?? null,
      status,
      d.run,
      JSON.stringify(attempt),
      d.attemptedAt,
    ],
  );
  // an endpoint fails from its first failed attempt after its last success
  await tx.query(
    `INSERT INTO rm_webhook_endpoints AS p (integration_id, last_success_at, failing_since)
     VALUES ($1, CASE WHEN $2 THEN $3::timestamptz END, CASE WHEN $2 THEN NULL ELSE $3::timestamptz END)
     ON CONFLICT (integration_id) DO UPDATE SET
       last_success_at = CASE WHEN $2 THEN GREATEST(p.last_success_at, $3::timestamptz)
                              ELSE p.last_success_at END,
       failing_since = CASE WHEN $2 THEN NULL
                            ELSE COALESCE(p.failing_since, $3::timestamptz) END`,
    [d.integrationId, d.outcome === 'delivered', d.attemptedAt],
  );
}

// ---- queries ----

export const encodeFeedCursor = (p: { commit_pos: string; prepare_pos: string }) =>
  `${p.commit_pos}.${p.prepare_pos}`;

export function decodeFeedCursor(cursor: string): { commit: string; prepare: string } | undefined {
  const m = cursor.match(/^(-?\d{1,19})\.(-?\d{1,19})$/);
  const fits = (x: string) => BigInt(x) <= 9223372036854775807n;
  return m && fits(m[1]!) && fits(m[2]!) ? { commit: m[1]!, prepare: m[2]! } : undefined;
}

/**
 * The label's messages after a place in the log (one integration's and the label's own,
 * when an integration is given).
 */
export async function feedPage(
  pool: pg.Pool,
  f: { labelId: string; integrationId?: string | undefined; after?: Position; limit: number },
): Promise<{ messages: WebhookMessage[]; last?: string }> {
  const r = await pool.query<{ message: WebhookMessage; commit_pos: string; prepare_pos: string }>(
    // ordered by the table's numbers, not the text columns of the same name
    `SELECT message, f.commit_pos::text, f.prepare_pos::text FROM rm_webhook_feed f
     WHERE label_id = $1 AND ($2::uuid IS NULL OR integration_id = $2 OR to_label)
       AND (f.commit_pos, f.prepare_pos) > ($3::bigint, $4::bigint)
     ORDER BY f.commit_pos, f.prepare_pos LIMIT $5`,
    [
      f.labelId,
      f.integrationId ?? null,
      (f.after?.commit ?? -1n).toString(),
      (f.after?.prepare ?? -1n).toString(),
      f.limit,
    ],
  );
  const last = r.rows.at(-1);
  return {
    messages: r.rows.map((x) => x.message),
    ...(last ? { last: encodeFeedCursor(last) } : {}),
  };
}

export async function feedMessage(
  pool: pg.Pool,
  messageId: string,
): Promise<{ message: WebhookMessage; labelId: string } | undefined> {
  const r = await pool.query<{ message: WebhookMessage; label_id: string }>(
    'SELECT message, label_id FROM rm_webhook_feed WHERE message_id = $1',
    [messageId],
  );
  const row = r.rows[0];
  return row && { message: row.message, labelId: row.label_id };
}

export interface DeliveryRow {
  delivery_id: string;
  integration_id: string;
  message_id: string;
  message_type: string;
  order_id: string | null;
  status: 'retrying' | 'delivered' | 'failed' | 'pending';
  runs: number;
  attempts: number;
  last_attempt: DeliveryAttempt;
  log: DeliveryAttempt[];
  first_at: string;
  last_at: string;
  delivered_at: string | null;
}

const DELIVERY = `SELECT delivery_id, integration_id, message_id, message_type, order_id, status,
  runs, attempts, last_attempt, log, first_at::text, last_at::text, delivered_at::text
  FROM rm_webhook_deliveries`;

export async function listDeliveries(
  pool: pg.Pool,
  f: {
    integrationId: string;
    status?: string | undefined;
    since?: string | undefined;
    /** keyset: the rows after this one (newest first) */
    before?: { firstAt: string; deliveryId: string } | undefined;
    limit: number;
  },
): Promise<DeliveryRow[]> {
  // only the conditions asked for: each shape of query walks its index in order
  const params: unknown[] = [f.integrationId];
  const where = ['integration_id = $1'];
  if (f.status) where.push(`status = $${params.push(f.status)}`);
  if (f.since) where.push(`first_at >= $${params.push(f.since)}::timestamptz`);
  if (f.before) {
    const at = params.push(f.before.firstAt);
    const id = params.push(f.before.deliveryId);
    where.push(
      `first_at <= $${at}::timestamptz AND (first_at < $${at}::timestamptz OR delivery_id > $${id})`,
    );
  }
  const r = await pool.query<DeliveryRow>(
    `${DELIVERY} WHERE ${where.join(' AND ')}
     ORDER BY rm_webhook_deliveries.first_at DESC, delivery_id LIMIT $${params.push(f.limit)}`,
    params,
  );
  return r.rows;
}

/** The cursor of the page after a row (opaque to clients). */
export const encodeDeliveryCursor = (row: Pick<DeliveryRow, 'first_at' | 'delivery_id'>) =>
  Buffer.from(JSON.stringify([row.first_at, row.delivery_id])).toString('base64url');

export function decodeDeliveryCursor(
  cursor: string,
): { firstAt: string; deliveryId: string } | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === 'string' &&
      typeof v[1] === 'string' &&
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/.test(v[0]) &&
      // a real instant (PostgreSQL refuses 2026-13-45), in its own words
      !Number.isNaN(Date.parse(v[0].replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'))) &&
      v[1].length <= 200
    )
      return { firstAt: v[0], deliveryId: v[1] };
  } catch {
    // not a cursor
  }
  return undefined;
}

export async function findDelivery(pool: pg.Pool, integrationId: string, deliveryId: string) {
  const r = await pool.query<DeliveryRow>(
    `${DELIVERY} WHERE integration_id = $1 AND delivery_id = $2`,
    [integrationId, deliveryId],
  );
  return r.rows[0];
}

export async function endpointHealth(
  pool: pg.Pool,
  integrationId: string,
): Promise<{ lastSuccessAt: string | null; failingSince: string | null }> {
  const r = await pool.query<{ last_success_at: Date | null; failing_since: Date | null }>(
    'SELECT last_success_at, failing_since FROM rm_webhook_endpoints WHERE integration_id = $1',
    [integrationId],
  );
  // ISO 8601 in UTC, like every time the API answers
  return {
    lastSuccessAt: r.rows[0]?.last_success_at?.toISOString() ?? null,
    failingSince: r.rows[0]?.failing_since?.toISOString() ?? null,
  };
}

/** For the metrics: undelivered deliveries' oldest first attempt, and counts by status. */
export async function deliveryBacklog(
  pool: pg.Pool,
): Promise<{ oldestUndeliveredAt: Date | undefined; failingEndpoints: number }> {
  const r = await pool.query<{ oldest: Date | null; failing: string }>(
    `SELECT (SELECT min(first_at) FROM rm_webhook_deliveries WHERE status <> 'delivered') AS oldest,
            (SELECT count(*) FROM rm_webhook_endpoints WHERE failing_since IS NOT NULL) AS failing`,
  );
  return {
    oldestUndeliveredAt: r.rows[0]?.oldest ?? undefined,
    failingEndpoints: Number(r.rows[0]?.failing ?? 0),
  };
}

export interface EndpointRow {
  integration_id: string;
  label_id: string;
  label_name: string;
  integration_name: string;
  url: string | null;
  state: string | null;
  disabled_reason: string | null;
  last_success_at: string | null;
  failing_since: string | null;
  retrying: number;
  failed: number;
}

/** Every webhook endpoint (one label's, when given) with its health, failing ones first. */
export async function listEndpoints(pool: pg.Pool, labelId?: string): Promise<EndpointRow[]> {
  const r = await pool.query<EndpointRow>(
    `SELECT e.integration_id, i.label_id, l.name AS label_name, i.name AS integration_name,
            e.url, e.state, e.disabled_reason, e.last_success_at::text, e.failing_since::text,
            (SELECT count(*)::int FROM rm_webhook_deliveries d
              WHERE d.integration_id = e.integration_id AND d.status = 'retrying') AS retrying,
            (SELECT count(*)::int FROM rm_webhook_deliveries d
              WHERE d.integration_id = e.integration_id AND d.status = 'failed') AS failed
     FROM rm_webhook_endpoints e
     JOIN rm_shop_integrations i ON i.integration_id = e.integration_id
     JOIN rm_labels l ON l.label_id = i.label_id
     WHERE e.url IS NOT NULL AND ($1::uuid IS NULL OR i.label_id = $1)
     ORDER BY e.failing_since NULLS LAST, l.name, i.name
     LIMIT 200`,
    [labelId ?? null],
  );
  return r.rows;
}

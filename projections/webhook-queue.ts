import type pg from 'pg';
import { auditHeadEvents } from '../src/domain/audit/events.ts';
import { orderEvents } from '../src/domain/order/events.ts';
import { shopIntegrationEvents } from '../src/domain/shop-integration/events.ts';
import { deliveryIdOf, webhookDeliveryEvents } from '../src/domain/webhook-delivery/events.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import {
  TOLD,
  treeHeadMessage,
  type WebhookMessage,
  webhookMessage,
} from '../src/webhooks/messages.ts';
import { nextAttemptAt } from '../src/webhooks/schedule.ts';
import { ENDPOINT_EVENTS, itemFacilities, orderRefs } from './order-refs.ts';
import type { Projection } from './projection.ts';

/**
 * The webhook deliveries to make, queued from the log: a message an endpoint takes is a
 * row due at once; a recorded attempt that is to be retried moves its row to the time of
 * the next attempt; one that ended (delivered, failed for good, gone) removes it; a
 * disabled endpoint's rows go. The dispatcher leases rows, POSTs and records attempts;
 * everything that changes a row here comes from the log.
 */
/** where each order item is made, for the shop-floor messages */
const facilities = itemFacilities('webhook_queue_item_facilities');

export const webhookQueueProjection: Projection = {
  name: 'webhook-queue',
  neverRebuilt: true,
  tables: [
    'webhook_queue',
    'webhook_queue_orders',
    'webhook_queue_endpoints',
    'webhook_queue_item_facilities',
    'webhook_queue_integrations',
  ],
  schema: `
    ${facilities.schema}
    CREATE TABLE IF NOT EXISTS webhook_queue (
      delivery_id    text NOT NULL,
      run            int NOT NULL,
      integration_id uuid NOT NULL,
      label_id       uuid NOT NULL,
      commit_pos     bigint NOT NULL,
      prepare_pos    bigint NOT NULL,
      message        json NOT NULL,
      attempt        int NOT NULL,
      due_at         timestamptz NOT NULL,
      leased_until   timestamptz,
      leased_by      text,
      PRIMARY KEY (delivery_id, run)
    );
    -- the trace of the event the message tells of: its deliveries continue it
    ALTER TABLE webhook_queue ADD COLUMN IF NOT EXISTS traceparent text;
    CREATE INDEX IF NOT EXISTS webhook_queue_due ON webhook_queue (due_at);
    CREATE INDEX IF NOT EXISTS webhook_queue_lane
      ON webhook_queue (integration_id, commit_pos, prepare_pos);
    CREATE INDEX IF NOT EXISTS webhook_queue_leased
      ON webhook_queue (integration_id) WHERE leased_until IS NOT NULL;
    CREATE TABLE IF NOT EXISTS webhook_queue_orders (
      stream_id text PRIMARY KEY,
      ref       json NOT NULL
    );
    CREATE TABLE IF NOT EXISTS webhook_queue_endpoints (
      integration_id  uuid PRIMARY KEY,
      enabled         boolean NOT NULL,
      events          json,
      ordered         boolean NOT NULL,
      max_in_flight   int NOT NULL,
      rate_per_second double precision
    );
    -- the label of each integration, for the label's own messages (the daily tree head);
    -- filled from the log, and once from the integrations' read model for the
    -- integrations made before this queue followed them
    CREATE TABLE IF NOT EXISTS webhook_queue_integrations (
      integration_id uuid PRIMARY KEY,
      label_id       uuid NOT NULL
    );
    CREATE INDEX IF NOT EXISTS webhook_queue_integrations_label
      ON webhook_queue_integrations (label_id);
    DO $$ BEGIN
      IF to_regclass('rm_shop_integrations') IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM webhook_queue_integrations) THEN
        INSERT INTO webhook_queue_integrations (integration_id, label_id)
        SELECT integration_id, label_id FROM rm_shop_integrations ON CONFLICT DO NOTHING;
      END IF;
    END $$;`,
  handles: new Set([
    ...TOLD,
    ...webhookDeliveryEvents.types,
    ...ENDPOINT_EVENTS,
    ...auditHeadEvents.types,
    'ShopIntegrationCreated',
  ]),
  async apply(tx, events) {
    const queued: unknown[][] = [];
    // endpoints as this page found them: an endpoint event in the page forgets them
    const endpoints = new Map<string, EndpointRow | undefined>();
    const flush = async () => {
      if (queued.length > 0) await enqueue(tx, queued.splice(0));
    };
    for (const e of events) {
      if (ENDPOINT_EVENTS.has(e.type)) {
        await flush();
        endpoints.clear();
        await applyEndpoint(tx, e);
      } else if (webhookDeliveryEvents.has(e.type)) {
        await flush();
        await applyDelivery(tx, e);
      } else if (e.type === 'ShopIntegrationCreated') {
        const created = shopIntegrationEvents.deserialize(e);
        if (created.type === 'ShopIntegrationCreated')
          await tx.query(
            `INSERT INTO webhook_queue_integrations (integration_id, label_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING`,
            [created.data.integrationId, created.data.labelId],
          );
      } else if (auditHeadEvents.has(e.type)) {
        await flush();
        await queueTreeHead(tx, e);
      } else {
        const row = await orderDelivery(tx, e, endpoints);
        if (row) queued.push(row);
      }
    }
    await flush();
  },
};

const enqueue = (tx: pg.PoolClient, rows: unknown[][]) =>
  tx.query(
    `INSERT INTO webhook_queue (delivery_id, run, integration_id, label_id, commit_pos,
       prepare_pos, message, traceparent, attempt, due_at)
     SELECT d, r, i, l, c, p, m, tp, 1, now()
     FROM unnest($1::text[], $2::int[], $3::uuid[], $4::uuid[], $5::bigint[], $6::bigint[],
       $7::json[], $8::text[]) AS t(d, r, i, l, c, p, m, tp)
     ON CONFLICT DO NOTHING`,
    Array.from({ length: 8 }, (_, k) => rows.map((r) => r[k])),
  );

/** The label's daily tree head: a row for each of its shops whose endpoint takes it. */
async function queueTreeHead(tx: pg.PoolClient, stored: RecordedEvent) {
  const e = auditHeadEvents.deserialize(stored);
  const message = treeHeadMessage(stored, e);
  const r = await tx.query<{ integration_id: string }>(
    `SELECT i.integration_id FROM webhook_queue_integrations i
     JOIN webhook_queue_endpoints p ON p.integration_id = i.integration_id
     WHERE i.label_id = $1 AND p.enabled
       AND (p.events IS NULL OR p.events::jsonb ? $2)
     ORDER BY i.integration_id`,
    [e.data.labelId, message.type],
  );
  if (r.rows.length > 0)
    await enqueue(
      tx,
      r.rows.map((x) => row(x.integration_id, e.data.labelId, message, 0, stored)),
    );
}

async function applyEndpoint(tx: pg.PoolClient, stored: RecordedEvent) {
  const e = shopIntegrationEvents.deserialize(stored);
  const id = e.data.integrationId;
  if (e.type === 'WebhookEndpointSet') {
    const d = e.data.delivery;
    await tx.query(
      `INSERT INTO webhook_queue_endpoints (integration_id, enabled, events, ordered,
         max_in_flight, rate_per_second)
       VALUES ($1, true, $2, $3, $4, $5)
       ON CONFLICT (integration_id) DO UPDATE SET enabled = true, events = $2, ordered = $3,
         max_in_flight = $4, rate_per_second = $5`,
      [
        id,
        e.data.events ? JSON.stringify(e.data.events) : null,
        d?.ordered ?? false,
        d?.maxInFlight ?? 16,
        d?.ratePerSecond ?? null,
      ],
    );
  } else if (e.type === 'WebhookEndpointDisabled') {
    await tx.query('UPDATE webhook_queue_endpoints SET enabled = false WHERE integration_id = $1', [
      id,
    ]);
    // what waits for a disabled endpoint is not sent; recovery sends it again when asked
    await tx.query('DELETE FROM webhook_queue WHERE integration_id = $1', [id]);
  } else if (e.type === 'WebhookEndpointEnabled')
    await tx.query('UPDATE webhook_queue_endpoints SET enabled = true WHERE integration_id = $1', [
      id,
    ]);
}

const refOf = orderRefs('webhook_queue_orders');

interface EndpointRow {
  enabled: boolean;
  events: string[] | null;
}

/** The queue row an order event makes, when its shop's endpoint takes the message. */
async function orderDelivery(
  tx: pg.PoolClient,
  stored: RecordedEvent,
  endpoints: Map<string, EndpointRow | undefined>,
) {
  const event = orderEvents.deserialize(stored);
  const ref = await refOf(tx, stored, event);
  if (!ref?.integrationId) return undefined;
  await facilities.note(tx, event);
  const made = webhookMessage(ref, stored, event);
  if (!made) return undefined;
  const message = await facilities.added(tx, made);
  if (!endpoints.has(ref.integrationId)) {
    const r = await tx.query<EndpointRow>(
      'SELECT enabled, events FROM webhook_queue_endpoints WHERE integration_id = $1',
      [ref.integrationId],
    );
    endpoints.set(ref.integrationId, r.rows[0]);
  }
  const endpoint = endpoints.get(ref.integrationId);
  if (!endpoint?.enabled || (endpoint.events && !endpoint.events.includes(message.type)))
    return undefined;
  return row(ref.integrationId, ref.labelId, message, 0, stored);
}

const row = (
  integrationId: string,
  labelId: string,
  message: WebhookMessage,
  run: number,
  stored: RecordedEvent,
) => [
  deliveryIdOf(message.id, integrationId),
  run,
  integrationId,
  labelId,
  stored.position.commit.toString(),
  stored.position.prepare.toString(),
  JSON.stringify(message),
  stored.metadata.traceparent ?? null,
];

async function applyDelivery(tx: pg.PoolClient, stored: RecordedEvent) {
  const e = webhookDeliveryEvents.deserialize(stored);
  if (e.type === 'WebhookResendRequested') {
    const r = await tx.query<{ message: WebhookMessage; label_id: string }>(
      'SELECT message, label_id FROM rm_webhook_feed WHERE message_id = $1',
      [e.data.messageId],
    );
    const found = r.rows[0];
    // the feed is another projection: tried again (and parked after a few tries)
    if (!found) throw new Error(`message ${e.data.messageId} is not in the feed yet`);
    const enabled = await tx.query(
      'SELECT 1 FROM webhook_queue_endpoints WHERE integration_id = $1 AND enabled',
      [e.data.integrationId],
    );
    if (enabled.rowCount)
      await enqueue(tx, [
        row(e.data.integrationId, found.label_id, found.message, e.data.run, stored),
      ]);
    return;
  }
  const d = e.data;
  // an attempt of a delivery workflow (before this queue) names no time: the schedule's
  const nextAt =
    d.nextAttemptAt ??
    nextAttemptAt(
      { deliveryId: d.deliveryId, run: d.run },
      d.attempt,
      new Date(d.attemptedAt),
    )?.toISOString();
  if (d.outcome === 'retrying' && nextAt)
    await tx.query(
      `UPDATE webhook_queue SET attempt = $3 + 1, due_at = $4, leased_until = NULL, leased_by = NULL
       WHERE delivery_id = $1 AND run = $2 AND attempt <= $3`,
      [d.deliveryId, d.run, d.attempt, nextAt],
    );
  else if (d.outcome !== 'retrying')
    await tx.query(
      'DELETE FROM webhook_queue WHERE delivery_id = $1 AND run = $2 AND attempt <= $3',
      [d.deliveryId, d.run, d.attempt],
    );
}

import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import type { OrderEvent } from '../src/domain/order/events.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import {
  FACILITY_MESSAGES,
  type OrderMessage,
  type OrderRef,
  orderRefOf,
  withFacility,
} from '../src/webhooks/messages.ts';

/** The shop-integration events that change a webhook endpoint. */
export const ENDPOINT_EVENTS: ReadonlySet<string> = new Set([
  'WebhookEndpointSet',
  'WebhookEndpointDisabled',
  'WebhookEndpointEnabled',
]);

/**
 * Orders' references by stream, kept in a projection's own table (`stream_id`, `ref`):
 * written at an order's first event, read (and cached: it never changes) at the others.
 */
export function orderRefs(table: string) {
  const known = new LRUCache<string, { ref: OrderRef }>({ max: 20_000 });
  return async (
    tx: pg.PoolClient,
    stored: RecordedEvent,
    event: OrderEvent,
  ): Promise<OrderRef | undefined> => {
    if (event.type === 'OrderReceived') {
      const ref = orderRefOf(event);
      if (!ref) return undefined;
      await tx.query(
        `INSERT INTO ${table} (stream_id, ref) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [stored.streamId, JSON.stringify(ref)],
      );
      known.set(stored.streamId, { ref });
      return ref;
    }
    const kept = known.get(stored.streamId);
    if (kept) return kept.ref;
    const r = await tx.query<{ ref: OrderRef }>(`SELECT ref FROM ${table} WHERE stream_id = $1`, [
      stored.streamId,
    ]);
    const ref = r.rows[0]?.ref;
    if (ref) known.set(stored.streamId, { ref });
    return ref;
  };
}

/**
 * Where each order item is made, in a projection's own table (`order_item_id`,
 * `facility_id`): noted at each ItemRouted, read for the messages of the shop floor.
 */
export function itemFacilities(table: string) {
  return {
    schema: `CREATE TABLE IF NOT EXISTS ${table} (
      order_item_id uuid PRIMARY KEY,
      facility_id   uuid
    );`,
    async note(tx: pg.PoolClient, event: OrderEvent): Promise<void> {
      if (event.type !== 'ItemRouted') return;
      await tx.query(
        `INSERT INTO ${table} (order_item_id, facility_id) VALUES ($1, $2)
         ON CONFLICT (order_item_id) DO UPDATE SET facility_id = $2`,
        [event.data.orderItemId, event.data.facilityId],
      );
    },
    /**
     * the message with the facility of its one item, where it is a shop-floor message (messages.ts)
     */
    async added(tx: pg.PoolClient, message: OrderMessage): Promise<OrderMessage> {
      const [one, ...more] = message.data.orderItemIds;
      if (!one || more.length > 0 || !FACILITY_MESSAGES.has(message.type)) return message;
      const r = await tx.query<{ facility_id: string | null }>(
        `SELECT facility_id FROM ${table} WHERE order_item_id = $1`,
        [one],
      );
      return withFacility(message, r.rows[0]?.facility_id ?? undefined);
    },
  };
}

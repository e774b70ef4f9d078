import type pg from 'pg';
import { orderEvents } from '../src/domain/order/events.ts';
import type { Projection } from './projection.ts';

/** Orders and their items, for the order routes and for finding an order item by id. */
export const ordersProjection: Projection = {
  name: 'orders',
  tables: ['rm_orders', 'rm_order_items'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_orders (
      stream_id   text PRIMARY KEY,
      label_id    uuid NOT NULL,
      order_id    text NOT NULL,
      status      text NOT NULL,
      reason      text,
      received_at timestamptz NOT NULL,
      updated_at  timestamptz NOT NULL,
      UNIQUE (label_id, order_id)
    );
    CREATE TABLE IF NOT EXISTS rm_order_items (
      order_item_id uuid PRIMARY KEY,
      stream_id     text NOT NULL,
      label_id      uuid NOT NULL,
      order_id      text NOT NULL,
      item_id       text NOT NULL,
      position      integer NOT NULL,
      sku           text NOT NULL,
      quantity      integer NOT NULL,
      status        text NOT NULL,
      reason        text,
      barcode       jsonb,
      print_files   jsonb NOT NULL DEFAULT '[]',
      warnings      jsonb NOT NULL DEFAULT '[]'
    );
    CREATE INDEX IF NOT EXISTS rm_order_items_stream ON rm_order_items (stream_id, position);`,
  handles: new Set([
    'OrderReceived',
    'OrderRenderingStarted',
    'PrintFileGenerated',
    'OrderItemFailed',
    'OrderReady',
    'OrderFailed',
    'OrderItemBarcodeUpdated',
    'PrintFileMismatchDetected',
  ]),
  async apply(tx, stored) {
    for (const s of stored) {
      const e = orderEvents.deserialize(s);
      const at = s.recordedAt.toISOString();
      const setStatus = (status: string, reason: string | null = null) =>
        tx.query(
          'UPDATE rm_orders SET status = $2, reason = $3, updated_at = $4 WHERE stream_id = $1',
          [s.streamId, status, reason, at],
        );
      switch (e.type) {
        case 'OrderReceived': {
          const d = e.data;
          await tx.query(
            `INSERT INTO rm_orders (stream_id, label_id, order_id, status, received_at, updated_at)
             VALUES ($1, $2, $3, 'received', $4, $4) ON CONFLICT DO NOTHING`,
            [s.streamId, d.labelId, d.orderId, d.receivedAt],
          );
          for (const [position, item] of d.items.entries()) {
            await tx.query(
              `INSERT INTO rm_order_items (order_item_id, stream_id, label_id, order_id, item_id, position, sku, quantity, status)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'received') ON CONFLICT DO NOTHING`,
              [
                item.orderItemId,
                s.streamId,
                d.labelId,
                d.orderId,
                item.itemId,
                position,
                item.sku,
                item.quantity,
              ],
            );
          }
          break;
        }
        case 'OrderRenderingStarted':
          await setStatus('rendering');
          await tx.query(
            "UPDATE rm_order_items SET status = 'rendering' WHERE stream_id = $1 AND status = 'received'",
            [s.streamId],
          );
          break;
        case 'PrintFileGenerated': {
          const d = e.data;
          const file = {
            storageKey: d.storageKey,
            sha256: d.sha256,
            pages: d.pages,
            bytes: d.bytes,
          };
          await tx.query(
            `UPDATE rm_order_items SET status = 'ready', reason = NULL, print_files = print_files || $2::jsonb, warnings = $3
             WHERE order_item_id = $1`,
            [d.orderItemId, JSON.stringify([file]), JSON.stringify(d.warnings)],
          );
          break;
        }
        case 'OrderItemFailed':
          await tx.query(
            "UPDATE rm_order_items SET status = 'failed', reason = $2 WHERE order_item_id = $1",
            [e.data.orderItemId, e.data.reason],
          );
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
          await setStatus('ready');
          break;
        case 'OrderFailed':
          await setStatus('failed', e.data.reason);
          break;
      }
    }
  },
};

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
  barcode: { format: string; value: string } | null;
  print_files: { storageKey: string; sha256: string; pages: number; bytes: number }[];
  warnings: string[];
}

export async function findOrder(pool: pg.Pool, labelId: string, orderId: string) {
  const order = await pool.query<{ stream_id: string; status: string; reason: string | null }>(
    'SELECT stream_id, status, reason FROM rm_orders WHERE label_id = $1 AND order_id = $2',
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

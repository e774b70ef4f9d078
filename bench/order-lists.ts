// npm run bench:order-lists
// The order lists at a million orders: p50/p99 of GET /operator/orders (first page, a
// cursor 900,000 rows deep, and each filter) over loopback against the service as its own
// process, next to a plain indexed SELECT of the same page from the same database in the
// same run. Also the counts behind the overview and the metrics.
// The million orders are written straight into the orders read model (rm_orders, one
// item each in rm_order_items, 20 labels in rm_labels): the lists read only those tables,
// and a million orders through the event log and the renderer would take hours here.
// Statuses: 97% ready, 2% failed (all overdue), 1% cancelled; none received or rendering,
// so the reconciler has nothing to start.
import pg from 'pg';
import { orderCounts } from '#projections/orders';
import { encodeCursor } from '../src/app/order-lists.ts';
import { startServiceStack } from './lib/stack.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const LABELS = 20;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function timed(n: number, f: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 10; i++) await f(); // warm
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: quantile(ms, 0.5), p99: quantile(ms, 0.99) };
}

async function seed(pool: pg.Pool): Promise<void> {
  const t0 = Date.now();
  await pool.query(
    `INSERT INTO rm_labels (label_id, name, partner_id, created_at)
     SELECT gen_random_uuid(), 'Label ' || l, 100000 + l, now() FROM generate_series(1, $1) l`,
    [LABELS],
  );
  const CHUNK = 100_000;
  for (let from = 1; from <= ORDERS; from += CHUNK) {
    const to = Math.min(ORDERS, from + CHUNK - 1);
    await pool.query(
      `WITH labels AS (
         SELECT array_agg(label_id ORDER BY partner_id) AS ids FROM rm_labels WHERE partner_id > 100000),
       o AS (
         SELECT n, (SELECT ids FROM labels)[1 + n % $3] AS label_id,
                'ORD-' || lpad(n::text, 8, '0') AS order_id,
                now() - (($4::int - n) * interval '30 seconds') AS received_at,
                CASE WHEN n % 100 < 2 THEN 'failed' WHEN n % 100 = 2 THEN 'cancelled' ELSE 'ready' END AS status
         FROM generate_series($1::int, $2::int) n)
       INSERT INTO rm_orders (stream_id, label_id, order_id, status, reason, last_error,
         items_total, items_ready, items_failed, items_rendering, received_at, render_due_at,
         ready_at, overdue_at, cancelled_at, updated_at)
       SELECT 'Order-' || label_id || '-' || md5(order_id), label_id, order_id, status,
         CASE WHEN status = 'failed' THEN 'line-1: the image is missing' END,
         CASE WHEN status = 'failed' THEN 'line-1: the image is missing' END,
         1, (status = 'ready')::int, (status = 'failed')::int, 0, received_at,
         received_at + interval '30 minutes',
         CASE WHEN status = 'ready' THEN received_at + interval '20 seconds' END,
         CASE WHEN status = 'failed' THEN received_at + interval '31 minutes' END,
         CASE WHEN status = 'cancelled' THEN received_at + interval '5 minutes' END,
         received_at
       FROM o`,
      [from, to, LABELS, ORDERS],
    );
    await pool.query(
      `INSERT INTO rm_order_items (order_item_id, stream_id, label_id, order_id, item_id, position,
         sku, quantity, status)
       SELECT gen_random_uuid(), stream_id, label_id, order_id, 'line-' || order_id, 0,
         'TEE-1', 1, status
       FROM rm_orders WHERE order_id BETWEEN 'ORD-' || lpad($1::text, 8, '0') AND 'ORD-' || lpad($2::text, 8, '0')`,
      [from, to],
    );
    process.stdout.write(`\r${to} of ${ORDERS} orders  `);
  }
  await pool.query('ANALYZE rm_orders');
  await pool.query('ANALYZE rm_order_items');
  console.log(`\nseeded in ${Math.round((Date.now() - t0) / 1000)} s`);
}

async function main() {
  const stack = await startServiceStack({ OVERDUE_SWEEP_MS: '3600000' });
  const pool = new pg.Pool({ connectionString: stack.databaseUrl, max: 4 });
  try {
    await seed(pool);
    const headers = { 'x-api-key': stack.operatorKey };
    const get = async (query: string) => {
      const r = await fetch(`${stack.base}/operator/orders?${query}`, { headers });
      if (r.status !== 200) throw new Error(`${query}: ${r.status} ${await r.text()}`);
      const body = (await r.json()) as { orders: unknown[] };
      if (body.orders.length === 0) throw new Error(`${query}: empty page`);
    };
    const deep = (
      await pool.query<{ received_at: Date; stream_id: string }>(
        'SELECT received_at, stream_id FROM rm_orders ORDER BY received_at DESC, stream_id DESC OFFSET $1 LIMIT 1',
        [Math.floor(ORDERS * 0.9)],
      )
    ).rows[0]!;
    const label = (
      await pool.query<{ id: string }>(
        'SELECT label_id AS id FROM rm_labels WHERE partner_id = 100001',
      )
    ).rows[0]!.id;
    const plainFirst = () =>
      pool.query('SELECT * FROM rm_orders ORDER BY received_at DESC, stream_id DESC LIMIT 50');
    const plainDeep = () =>
      pool.query(
        `SELECT * FROM rm_orders WHERE (received_at, stream_id) < ($1, $2)
         ORDER BY received_at DESC, stream_id DESC LIMIT 50`,
        [deep.received_at, deep.stream_id],
      );
    // an hour in the middle of the orders' time span (one order every 30 s)
    const middle = Date.now() - (ORDERS / 2) * 30_000;
    const since = new Date(middle).toISOString();
    const until = new Date(middle + 3_600_000).toISOString();
    const cases: [string, () => Promise<unknown>][] = [
      ['baseline: plain indexed SELECT, first page of 50', plainFirst],
      ['baseline: plain indexed SELECT, 50 rows after a keyset 90% deep', plainDeep],
      ['GET /operator/orders first page (50)', () => get('limit=50')],
      ['GET /operator/orders cursor 90% deep', () => get(`limit=50&cursor=${encodeCursor(deep)}`)],
      ['GET /operator/orders one label', () => get(`limit=50&labelId=${label}`)],
      ['GET /operator/orders status=failed', () => get('limit=50&status=failed')],
      ['GET /operator/orders status=overdue', () => get('limit=50&status=overdue')],
      [
        'GET /operator/orders one label, failed',
        () => get(`limit=50&labelId=${label}&status=failed`),
      ],
      [
        'GET /operator/orders q=order id prefix (100 match)',
        () =>
          get(
            `limit=50&q=ORD-${String(Math.floor(ORDERS / 2))
              .padStart(8, '0')
              .slice(0, 6)}`,
          ),
      ],
      [
        "GET /operator/orders an hour's window (since/until)",
        () => get(`limit=50&since=${since}&until=${until}`),
      ],
      ['GET /operator/orders limit=200', () => get('limit=200')],
      ['order counts (overview, metrics): every label', () => orderCounts(pool)],
    ];
    const rows: string[] = [];
    let base = 0;
    for (const [name, f] of cases) {
      const { p50, p99 } = await timed(REQUESTS, f);
      if (name.startsWith('baseline: plain indexed SELECT, first')) base = p50;
      rows.push(`| ${name} | ${p50.toFixed(2)} | ${p99.toFixed(2)} | ${(p50 / base).toFixed(1)} |`);
      console.log(rows.at(-1));
    }
    console.log(
      `\n${ORDERS.toLocaleString('en')} orders, ${REQUESTS} sequential requests per case\n\n| case | p50 ms | p99 ms | p50 / plain first page |\n|---|---:|---:|---:|\n${rows.join('\n')}`,
    );
  } finally {
    await pool.end();
    await stack.stop();
  }
}

await main();

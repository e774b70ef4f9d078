// npm run bench:webhooks
// Webhook delivery throughput and latency, each against a plain loop in this process that
// signs messages (standardwebhooks) and POSTs them one after another to the same local
// receiver (answering 204), in the same run:
// - burst: 10,000 order events (order.late) appended to the event store at once for 50
//   orders of 50 shop integrations, each with its own endpoint, nothing rendering: the
//   deliveries per second from the first append to the last receipt;
// - steady: 100 events a second for 20 s: append-to-receipt p50 and p95;
// - slow neighbours: the steady stream to a fast endpoint while one answers after 10 s
//   and one refuses connections: the fast one's p50/p95;
// - pipeline (BENCH_ORDERS one-item orders, 300 unless set; 0 leaves it out): sale
//   notifications over HTTP, rendered by the worker, to their order.received deliveries.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { encodeDeliveryCursor } from '../projections/webhooks.ts';
import { orderEvents } from '../src/domain/order/events.ts';
import { type NewEvent, START } from '../src/eventstore/port.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import { signedHeaders } from '../src/webhooks/signing.ts';
import { figure } from './lib/figures.ts';
import { benchShop } from './lib/shop.ts';
import { printTopStatements, type ServiceStack, startServiceStack } from './lib/stack.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 300);
const NOTIFY_PARALLEL = 8;
const BURST = Number(process.env.BENCH_BURST ?? 10_000);
const ENDPOINTS = 50;
const STEADY_PER_SECOND = 100;
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 20);
const LOOP = 2_000;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};

async function main() {
  let stack: ServiceStack | undefined;
  const received = new Map<string, number>();
  let requests = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      requests++;
      if (!received.has(id)) received.set(id, performance.now());
      if (req.url === '/slow') setTimeout(() => res.writeHead(204).end(), 10_000);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const url = `${origin}/hooks`;
  // a port nobody listens on: connections are refused
  const refusing = createServer();
  await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
  const refusedUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/hooks`;
  refusing.close();
  try {
    stack = await startServiceStack({
      PARTNER_SIMULATOR: 'on',
      WEBHOOK_ALLOW_HTTP: 'on',
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_TIMEOUT_MS: '30000',
    });
    const area = { code: 'FRONT', name: 'Front', widthMm: 105, heightMm: 148 };
    const design = {
      areas: [
        {
          printArea: 'FRONT',
          layers: [
            { type: 'text', text: 'Thank you', x: 5, y: 20, fontSize: 18, color: '#000000' },
          ],
        },
      ],
    };
    const { call, label, shop, projectId } = await benchShop(stack, area, design);
    const hook = await call('PUT', `/api/shop-integration/${shop.id}/webhook`, label.adminApiKey, {
      url,
      events: ['order.received'],
    });

    const loopRate = await plainLoop(url, hook.secret, LOOP);
    console.log(`plain loop: ${loopRate.toFixed(0)} signed POSTs/s`);

    // ---- burst and steady: events appended straight to the log, nothing rendering ----
    const storePool = new pg.Pool({ connectionString: stack.databaseUrl, max: 4 });
    const store = new PostgresEventStore(storePool);
    const orders: { stream: string; integrationId: string }[] = [];
    const makeShop = async (n: number, to: string, delivery?: unknown) => {
      const s = await call('POST', '/api/shop-integration', label.adminApiKey, {
        name: `Endpoint ${n}`,
        shopSystem: 'bench',
        shopUrl: 'https://bench.example',
      });
      await call('PUT', `/api/shop-integration/${s.id}/webhook`, label.adminApiKey, {
        url: to,
        events: ['order.late'],
        ...(delivery ? { delivery } : {}),
      });
      const orderId = `LATE-${n}-${randomUUID().slice(0, 6)}`;
      await call('POST', '/webhook/notifyorder', s.apiKey, {
        orderId,
        items: [{ itemId: 'l1', projectId, quantity: 1 }],
      });
      return { id: s.id as string, orderId };
    };
    const made = [];
    for (let n = 0; n < ENDPOINTS; n++) made.push(await makeShop(n, `${url}/${n}`));
    // every order rendered before the measurement starts
    for (const m of made) {
      for (;;) {
        const o = await call('GET', `/api/orders/${m.orderId}`, label.adminApiKey).catch(
          () => undefined,
        );
        if (o?.status === 'ready') break;
        await new Promise((r) => setTimeout(r, 500));
      }
      orders.push({ stream: await orderStream(store, m.orderId), integrationId: m.id });
    }
    const late = (): NewEvent => ({
      id: randomUUID(),
      ...orderEvents.serialize({
        type: 'OrderWentLate',
        data: { shipBy: new Date().toISOString(), noticedAt: new Date().toISOString() },
      }),
      metadata: { actor: 'bench' },
    });

    received.clear();
    requests = 0;
    const burstIds: string[] = [];
    const burstBegan = performance.now();
    const perOrder = BURST / ENDPOINTS;
    await Promise.all(
      orders.map(async (o) => {
        for (let k = 0; k < perOrder; k += 100) {
          const events = Array.from({ length: Math.min(100, perOrder - k) }, late);
          burstIds.push(...events.map((e) => `msg_${e.id}`));
          await store.append(o.stream, events, 'any');
        }
      }),
    );
    const appended = performance.now();
    await until(() => burstIds.every((id) => received.has(id)), 10 * 60_000, 'the burst');
    const burstLast = Math.max(...burstIds.map((id) => received.get(id)!));
    const burstRate = BURST / ((burstLast - burstBegan) / 1000);
    const burstDuplicates = requests - burstIds.length;
    console.log(`burst: ${burstRate.toFixed(0)} deliveries/s`);

    /** events at a steady rate, round the streams; the latencies of those to `measured` */
    const steady = async (streams: string[], seconds: number, measured = streams) => {
      const sent = new Map<string, number>();
      const failed: string[] = [];
      let expected = 0;
      const chains = new Map<string, Promise<unknown>>();
      const began = performance.now();
      for (let k = 0; k < STEADY_PER_SECOND * seconds; k++) {
        const due = began + (k * 1000) / STEADY_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const e = late();
        const stream = streams[k % streams.length]!;
        if (measured.includes(stream)) expected++;
        // one append at a time per stream, the streams side by side
        chains.set(
          stream,
          (chains.get(stream) ?? Promise.resolve()).then(() =>
            store.append(stream, [e], 'any').then(
              () => measured.includes(stream) && sent.set(`msg_${e.id}`, performance.now()),
              (err: Error) => failed.push(err.message),
            ),
          ),
        );
      }
      await until(
        () =>
          sent.size + failed.length === expected &&
          [...sent.keys()].every((id) => received.has(id)),
        60_000,
        () =>
          `the steady stream (${sent.size} appended, ${failed.length} appends failed: ${failed[0]}; ${[...sent.keys()].filter((id) => received.has(id)).length} received)`,
      );
      if (failed.length > 0) throw new Error(`appends failed: ${failed[0]}`);
      return [...sent].map(([id, at]) => received.get(id)! - at);
    };
    // the steady stream starts on a quiet service: every projection has read the burst
    const quiet = async () => {
      for (;;) {
        const ps: { behind: number }[] = await call(
          'GET',
          '/operator/projections',
          stack!.operatorKey,
        );
        if (ps.every((p) => p.behind === 0)) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    await quiet();
    const latencies = await steady(
      orders.map((o) => o.stream),
      STEADY_SECONDS,
    );

    // ---- slow neighbours: one endpoint answers after 10 s, one refuses connections ----
    const slow = await makeShop(ENDPOINTS, `${origin}/slow`);
    const dead = await makeShop(ENDPOINTS + 1, refusedUrl);
    const fast = await makeShop(ENDPOINTS + 2, `${url}/fast`);
    for (const m of [slow, dead, fast]) {
      for (;;) {
        const o = await call('GET', `/api/orders/${m.orderId}`, label.adminApiKey).catch(
          () => undefined,
        );
        if (o?.status === 'ready') break;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    const slowStreams = await Promise.all([slow, dead].map((m) => orderStream(store, m.orderId)));
    const fastStream = await orderStream(store, fast.orderId);
    // the neighbours get as many as the fast one, at the same time
    await quiet();
    const isolated = await steady([...slowStreams, fastStream], 10, [fastStream]);
    figure('webhooks.burst_ratio', burstRate / loopRate);
    figure('webhooks.steady_p95_ms', quantile(latencies, 0.95));
    figure('webhooks.isolated_p95_ms', quantile(isolated, 0.95));
    // ---- the deliveries log at a million attempts: keyset pages (BENCH_DELIVERIES_LOG=0 leaves it
    // out) ----
    const logPages = process.env.BENCH_DELIVERIES_LOG !== '0';
    const deliveriesLog = async () => {
      const big = orders[0]!.integrationId;
      await storePool.query(
        `INSERT INTO rm_webhook_deliveries (delivery_id, integration_id, label_id, message_id,
           message_type, order_id, status, runs, attempts, last_attempt, log, first_at, last_at)
         SELECT 'msg_bench_' || g || '.' || $1::text, $1::uuid, $2::uuid, 'msg_bench_' || g,
           'order.late', 'BIG',
           CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'delivered' END, 1, 1, '{}'::jsonb, '[]'::jsonb,
           now() - g * interval '1 second', now() - g * interval '1 second'
         FROM generate_series(1, 1000000) AS g`,
        [big, label.labelId],
      );
      await storePool.query('ANALYZE rm_webhook_deliveries');
      const deep = await storePool.query<{ first_at: string; delivery_id: string }>(
        `SELECT first_at::text, delivery_id FROM rm_webhook_deliveries WHERE integration_id = $1
         ORDER BY first_at DESC, delivery_id OFFSET 900000 LIMIT 1`,
        [big],
      );
      const pageMs = async (query: string) => {
        const ms: number[] = [];
        for (let i = 0; i < 21; i++) {
          const began = performance.now();
          const r = await fetch(
            `${stack!.base}/api/shop-integration/${big}/webhook/deliveries?${query}`,
            { headers: { 'x-api-key': label.adminApiKey } },
          );
          if (r.status !== 200 || ((await r.json()) as unknown[]).length !== 100)
            throw new Error(`deliveries page: ${r.status}`);
          ms.push(performance.now() - began);
        }
        return quantile(ms.slice(1), 0.5);
      };
      const firstPage = await pageMs('limit=100');
      const deepPage = await pageMs(`limit=100&before=${encodeDeliveryCursor(deep.rows[0]!)}`);
      const failedDeep = await pageMs(
        `limit=100&status=failed&before=${encodeDeliveryCursor(deep.rows[0]!)}`,
      );
      return `${firstPage.toFixed(1)} / ${deepPage.toFixed(1)} / ${failedDeep.toFixed(1)}`;
    };
    const logFigures = logPages ? await deliveriesLog() : 'left out (BENCH_DELIVERIES_LOG=0)';

    await store.close();
    await storePool.end();
    await printTopStatements(stack.databaseUrl);

    console.log(
      `\nWebhook deliveries, receiver answers 204 (plain loop: ${LOOP} signed POSTs one after another)\n`,
    );
    console.log('| measure | value |');
    console.log('|---|---:|');
    console.log(`| plain loop of signed POSTs, per second | ${loopRate.toFixed(0)} |`);
    console.log(
      `| burst: ${BURST} events appended over ${ENDPOINTS} endpoints (${((appended - burstBegan) / 1000).toFixed(1)} s to append), deliveries per second | ${burstRate.toFixed(0)} |`,
    );
    console.log(`| ratio burst / loop (goal >= 0.5) | ${(burstRate / loopRate).toFixed(3)} |`);
    console.log(`| burst: requests beyond one per message | ${burstDuplicates} |`);
    console.log(
      `| steady ${STEADY_PER_SECOND} events/s for ${STEADY_SECONDS} s, append to receipt p50 / p95 / max, ms (goal p95 < 500) | ${quantile(latencies, 0.5).toFixed(0)} / ${quantile(latencies, 0.95).toFixed(0)} / ${Math.max(...latencies).toFixed(0)} |`,
    );
    console.log(
      `| fast endpoint beside one answering after 10 s and one refusing, p50 / p95, ms (goal p95 < 1000) | ${quantile(isolated, 0.5).toFixed(0)} / ${quantile(isolated, 0.95).toFixed(0)} |`,
    );
    console.log(
      `| deliveries log of one endpoint at 1,000,000 attempts, 100 a page, p50 ms: first page / 900,000 deep / failed only, 900,000 deep | ${logFigures} |`,
    );
    if (ORDERS === 0) return;

    received.clear();
    requests = 0;

    const began = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: NOTIFY_PARALLEL }, async () => {
        while (next < ORDERS) {
          const i = next++;
          await call('POST', '/webhook/notifyorder', shop.apiKey, {
            orderId: `WH-${i}`,
            items: [{ itemId: 'l1', projectId, quantity: 1 }],
          });
        }
      }),
    );
    const notified = performance.now();
    while (received.size < ORDERS) {
      if (performance.now() - began > 30 * 60_000)
        throw new Error(`only ${received.size} delivered`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const last = Math.max(...received.values());
    const pipelineRate = ORDERS / ((last - began) / 1000);
    const notifyRate = ORDERS / ((notified - began) / 1000);

    // the delivery machinery alone: resends of delivered messages, nothing rendering
    await new Promise((r) => setTimeout(r, 2000)); // a late re-delivery would still count
    const duplicates = requests - received.size;
    const deliveries: { deliveryId: string }[] = [];
    for (;;) {
      const page = await call(
        'GET',
        `/api/shop-integration/${shop.id}/webhook/deliveries?status=delivered&limit=500`,
        label.adminApiKey,
      );
      if (page.length >= Math.min(500, ORDERS)) {
        deliveries.push(...page);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const before = requests;
    const resentBegan = performance.now();
    let at = 0;
    await Promise.all(
      Array.from({ length: NOTIFY_PARALLEL }, async () => {
        while (at < deliveries.length) {
          const d = deliveries[at++]!;
          await call(
            'POST',
            `/api/shop-integration/${shop.id}/webhook/deliveries/${encodeURIComponent(d.deliveryId)}/resend`,
            label.adminApiKey,
          );
        }
      }),
    );
    while (requests - before < deliveries.length) {
      if (performance.now() - resentBegan > 10 * 60_000) throw new Error('resends did not arrive');
      await new Promise((r) => setTimeout(r, 20));
    }
    const resendRate = deliveries.length / ((performance.now() - resentBegan) / 1000);

    console.log(`\n${ORDERS} one-item orders, webhook for order.received, receiver answers 204\n`);
    console.log('| measure | value |');
    console.log('|---|---:|');
    console.log(`| plain loop of signed POSTs, per second | ${loopRate.toFixed(0)} |`);
    console.log(
      `| pipeline: notification to delivery, deliveries per second | ${pipelineRate.toFixed(1)} |`,
    );
    console.log(`| ratio pipeline / loop | ${(pipelineRate / loopRate).toFixed(3)} |`);
    console.log(
      `| notifications accepted per second (${NOTIFY_PARALLEL} at a time) | ${notifyRate.toFixed(1)} |`,
    );
    console.log(
      `| last delivery after the last notification, s | ${((last - notified) / 1000).toFixed(1)} |`,
    );
    console.log(`| requests beyond one per message before the resends | ${duplicates} |`);
    console.log(
      `| delivery machinery alone: ${deliveries.length} resends, deliveries per second | ${resendRate.toFixed(1)} |`,
    );
    console.log(`| ratio delivery machinery / loop | ${(resendRate / loopRate).toFixed(3)} |`);
  } finally {
    await stack?.stop();
    receiver.close();
  }
}

/** The baseline: `n` messages signed and POSTed one after another; per second. */
async function plainLoop(url: string, secret: string, n: number): Promise<number> {
  const began = performance.now();
  for (let i = 0; i < n; i++) {
    const id = `msg_${randomUUID()}`;
    const body = JSON.stringify({
      type: 'order.received',
      timestamp: new Date().toISOString(),
      data: { orderId: `LOOP-${i}`, sequence: 1, orderItemIds: [randomUUID()] },
    });
    const r = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signedHeaders([secret], id, new Date(), body),
      },
      body,
    });
    await r.arrayBuffer();
  }
  return n / ((performance.now() - began) / 1000);
}

async function until(
  done: () => boolean,
  ms: number,
  what: string | (() => string),
): Promise<void> {
  const began = performance.now();
  while (!done()) {
    if (performance.now() - began > ms)
      throw new Error(`${typeof what === 'string' ? what : what()} did not arrive`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** An order's stream, found by its order id (the bench reads the log directly). */
async function orderStream(store: PostgresEventStore, orderId: string): Promise<string> {
  for (let after = START; ; ) {
    const page = await store.readAll({ after, limit: 1000, dataOf: ['OrderReceived'] });
    if (page.length === 0) throw new Error(`order ${orderId} not found`);
    const hit = page.find(
      (e) => e.type === 'OrderReceived' && (e.data as { orderId?: string }).orderId === orderId,
    );
    if (hit) return hit.streamId;
    after = page[page.length - 1]!.position;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

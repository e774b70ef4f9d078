// npm run bench:scans
// Shop-floor scans: SCANS requests to POST /v1/production/scans over loopback at
// CONNECTIONS at a time, every scan a new event on its order's stream: half `printed`,
// the items of one order after another (CONNECTIONS scans of one order at once), half
// `packed`, interleaving the orders. Against a plain fastify route in its own process
// that checks an API key and appends one row to the same PostgreSQL, sent the same
// bodies in the same way, in the same run. Prints scans/s and p50/p99 latency of both,
// the ratio overall and per half, and where the CPU went during the scans. Measured once
// the renders (and their previews) are done, so neither side shares the cores with them.
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../src/db/database.ts';
import { cpuSnapshot, cpuSpent, threadSnapshot, threadsSpent } from './lib/cpu.ts';
import { figure } from './lib/figures.ts';
import { benchShop } from './lib/shop.ts';
import { type ServiceStack, startServiceStack } from './lib/stack.ts';

const SCANS = Number(process.env.BENCH_SCANS ?? 2000); // half `printed`, half `packed`
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ITEMS_PER_ORDER = 50;

/**
 * Sends every body once, CONNECTIONS at a time (fetch keeps the connections), timing each
 * request and the whole (from the first request sent to the last answer).
 */
async function fire(
  url: string,
  key: string,
  bodies: string[],
): Promise<{ rate: number; p50: number; p99: number; non2xx: number }> {
  const latencies: number[] = [];
  let non2xx = 0;
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const t0 = performance.now();
        const r = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body,
        });
        await r.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (r.status >= 300) non2xx++;
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number(latencies[Math.floor(q * (latencies.length - 1))]!.toFixed(1));
  return { rate: bodies.length / seconds, p50: at(0.5), p99: at(0.99), non2xx };
}

async function main() {
  let stack: ServiceStack | undefined;
  let baseline: ChildProcess | undefined;
  try {
    stack = await startServiceStack({ PARTNER_SIMULATOR: 'on' });
    const area = { code: 'FRONT', name: 'Front', widthMm: 50, heightMm: 30 };
    const design = {
      areas: [
        {
          printArea: 'FRONT',
          layers: [{ type: 'text', text: 'Scan me', x: 2, y: 10, fontSize: 12, color: '#000000' }],
        },
      ],
    };
    const { call, label, shop, projectId } = await benchShop(stack, area, design);
    const items = Math.ceil(SCANS / 2);
    const orders = Math.ceil(items / ITEMS_PER_ORDER);
    // two more orders whose items warm both servers up before anything is measured
    const WARM_ORDERS = 2;
    const codes: string[] = [];
    process.stderr.write(`rendering ${orders} orders of ${ITEMS_PER_ORDER} items...\n`);
    for (let o = 0; o < orders + WARM_ORDERS; o++) {
      const answer = await call('POST', '/webhook/notifyorder', shop.apiKey, {
        orderId: `SCAN-${o}`,
        items: Array.from({ length: ITEMS_PER_ORDER }, (_, n) => ({
          itemId: `l${n}`,
          projectId,
          quantity: 1,
        })),
      });
      codes.push(...answer.items.map((i: { orderItemId: string }) => i.orderItemId));
    }
    for (let o = 0; o < orders + WARM_ORDERS; o++) {
      for (;;) {
        const v = await call('GET', `/api/orders/SCAN-${o}`, label.adminApiKey);
        if (v.status === 'ready') break;
        if (v.status === 'failed') throw new Error(`order SCAN-${o} failed`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    // the renders' previews are drawn after the orders are ready: measure once all is quiet
    for (let i = 0; i < 180; i++) {
      const before = cpuSnapshot().get(stack.service.pid ?? 0)?.seconds ?? 0;
      await new Promise((r) => setTimeout(r, 1000));
      const after = cpuSnapshot().get(stack.service.pid ?? 0)?.seconds ?? 0;
      if (after - before < 0.05) break;
    }
    // two ways a floor scans: `printed` order by order, CONNECTIONS scans of one order at
    // a time (a press run's sheets); `packed` interleaving the orders (item n of every
    // order, then item n+1), as stations working on different orders at once
    const used = codes.slice(0, items);
    const warm = codes
      .slice(orders * ITEMS_PER_ORDER)
      .map((code) => JSON.stringify({ code, stage: 'printed', station: 'Warm-up' }));
    const interleaved = used
      .map((code, i) => ({
        code,
        key: (i % ITEMS_PER_ORDER) * orders + Math.floor(i / ITEMS_PER_ORDER),
      }))
      .sort((a, b) => a.key - b.key)
      .map((x) => x.code);
    const sameOrder = used.map((code) =>
      JSON.stringify({ code, stage: 'printed', station: 'Press 1' }),
    );
    const acrossOrders = interleaved.map((code) =>
      JSON.stringify({ code, stage: 'packed', station: 'Packing 1' }),
    );

    const port = await freePort();
    baseline = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/baseline-append-server.ts',
        String(port),
        stack.databaseUrl,
        'bench-key',
      ],
      { stdio: 'inherit' },
    );
    // the baseline answers 401 to the probe without a key; wait for it to listen
    for (let i = 0; i < 240; i++) {
      const up = await fetch(`http://127.0.0.1:${port}/scans`, { method: 'POST' }).then(
        () => true,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const baseUrl = `http://127.0.0.1:${port}/scans`;
    await fire(baseUrl, 'bench-key', warm);
    const base = {
      sameOrder: await fire(baseUrl, 'bench-key', sameOrder),
      acrossOrders: await fire(baseUrl, 'bench-key', acrossOrders),
    };
    const scanUrl = `${stack.base}/v1/production/scans`;
    await fire(scanUrl, label.fulfillmentApiKey, warm);
    const cpuBefore = cpuSnapshot();
    const threadsBefore = threadSnapshot(stack.service.pid ?? 0);
    const scans = {
      sameOrder: await fire(scanUrl, label.fulfillmentApiKey, sameOrder),
      acrossOrders: await fire(scanUrl, label.fulfillmentApiKey, acrossOrders),
    };
    const cpu = cpuSpent(cpuBefore, cpuSnapshot(), {
      service: stack.service.pid,
      bench: process.pid,
    })
      .filter(([, s]) => s >= 0.1)
      .map(([name, s]) => `${name} ${s.toFixed(1)} s`)
      .join(', ');
    const threads = threadsSpent(threadsBefore, threadSnapshot(stack.service.pid ?? 0));
    const ratioOf = (k: 'sameOrder' | 'acrossOrders') =>
      Number((scans[k].rate / base[k].rate).toFixed(2));
    const all = (r: typeof scans) =>
      (2 * items) / (items / r.sameOrder.rate + items / r.acrossOrders.rate);
    const ratio = all(scans) / all(base);
    const p99 = Math.max(scans.sameOrder.p99, scans.acrossOrders.p99);
    const failed = scans.sameOrder.non2xx + scans.acrossOrders.non2xx;
    figure('scans.ratio', ratio);
    figure('scans.p99_ms', p99);
    figure('scans.failed', failed);
    console.log(
      JSON.stringify(
        {
          scans: SCANS,
          connections: CONNECTIONS,
          baseline: base,
          scansRoute: scans,
          ratio: Number(ratio.toFixed(2)),
          ratioSameOrder: ratioOf('sameOrder'),
          ratioAcrossOrders: ratioOf('acrossOrders'),
          cpuDuringScans: cpu,
          serviceThreads: threads,
          goal: 'ratio >= 0.5, p99 < 50 ms',
          met: ratio >= 0.5 && p99 < 50 && failed === 0,
        },
        null,
        2,
      ),
    );
  } finally {
    baseline?.kill('SIGTERM');
    await stack?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

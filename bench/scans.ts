// npm run bench:scans
// Shop-floor scans: SCANS requests to POST /v1/production/scans (each item of ready
// orders scanned `printed`, then `packed`: every scan a new event on its order's
// stream), at CONNECTIONS connections over loopback, against a plain fastify route in its
// own process that checks an API key and appends one row to the same PostgreSQL, the
// same number of requests at the same concurrency, in the same run. Prints scans/s, the
// ratio to the baseline, and p50/p99 latency of both.
import { type ChildProcess, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { freePort } from '../src/db/database.ts';
import { benchShop } from './lib/shop.ts';
import { type ServiceStack, startServiceStack } from './lib/stack.ts';

const SCANS = Number(process.env.BENCH_SCANS ?? 2000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ITEMS_PER_ORDER = 50;

function fire(
  url: string,
  key: string,
  bodies: string[],
): Promise<{ rate: number; p50: number; p99: number; non2xx: number }> {
  let next = 0;
  return new Promise((resolve, reject) => {
    const began = performance.now();
    autocannon(
      {
        url,
        method: 'POST',
        connections: CONNECTIONS,
        amount: bodies.length,
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        requests: [{ setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }) }],
      },
      (err, r) => {
        if (err) return reject(err);
        const seconds = (performance.now() - began) / 1000;
        resolve({
          rate: r.requests.total / seconds,
          p50: r.latency.p50,
          p99: r.latency.p99,
          non2xx: r.non2xx,
        });
      },
    );
  });
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
    const codes: string[] = [];
    process.stderr.write(`rendering ${orders} orders of ${ITEMS_PER_ORDER} items...\n`);
    for (let o = 0; o < orders; o++) {
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
    for (let o = 0; o < orders; o++) {
      for (;;) {
        const v = await call('GET', `/api/orders/SCAN-${o}`, label.adminApiKey);
        if (v.status === 'ready') break;
        if (v.status === 'failed') throw new Error(`order SCAN-${o} failed`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    const used = codes.slice(0, items);
    const bodies = [
      ...used.map((code) => JSON.stringify({ code, stage: 'printed', station: 'Press 1' })),
      ...used.map((code) => JSON.stringify({ code, stage: 'packed', station: 'Packing 1' })),
    ].slice(0, SCANS);

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
    const base = await fire(`http://127.0.0.1:${port}/scans`, 'bench-key', bodies);
    const scans = await fire(`${stack.base}/v1/production/scans`, label.fulfillmentApiKey, bodies);
    const ratio = scans.rate / base.rate;
    console.log(
      JSON.stringify(
        {
          scans: SCANS,
          connections: CONNECTIONS,
          baseline: base,
          scansRoute: scans,
          ratio: Number(ratio.toFixed(2)),
          goal: 'ratio >= 0.5, p99 < 50 ms',
          met: ratio >= 0.5 && scans.p99 < 50 && scans.non2xx === 0,
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

/**
 * `npm run bench:soak`: the embedded default (`npm start`'s PGlite and Temporal dev
 * server) under a steady mix from three labels for SOAK_MINUTES (30): sales rendered,
 * proofs approved, data sets uploaded and erased, audit proofs, order reads and lists,
 * webhooks delivered to a receiver. Every minute it prints the main process's RSS and
 * the whole service tree's (image processes, the Temporal dev server); at the end the
 * growth after the first SOAK_WARMUP_MINUTES (5): the mean of the next five minutes against
 * that of the last five, whose goal is under 5%.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { http, labelWithShop } from '../scripts/lib/demo-catalog.ts';
// @ts-expect-error: a plain ES module of the project's scripts, without types
import { ensureBuilt, ensureTemporalCli } from '../scripts/lib/prepare.mjs';
import { freePort } from '../src/db/database.ts';
import { CARD_AREA, cardDesign } from './lib/card.ts';
import { editorProject } from './lib/shop.ts';
import { waitFor } from './lib/stack.ts';
import { treeRss } from './lib/tree-memory.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const WARMUP = Number(process.env.SOAK_WARMUP_MINUTES ?? Math.min(5, Math.floor(MINUTES / 3)));

ensureBuilt();
// as `npm start` does: the project's Temporal CLI for the embedded dev server
ensureTemporalCli();
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'soak-'));
const port = await freePort();
const operatorKey = randomBytes(32).toString('base64url');
const service = spawn(process.execPath, ['--conditions=production', 'dist/src/main.js'], {
  env: {
    ...process.env,
    MALLOC_ARENA_MAX: '2', // as `npm start` sets it
    DATA_DIR: dataDir,
    PORT: String(port),
    OPERATOR_API_KEY: operatorKey,
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
const stopAll = () => {
  service.kill('SIGTERM');
  receiver.close();
};

// the shops' webhook receiver: takes everything, counts it
let delivered = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    delivered++;
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

const counts = { ok: 0, refused: 0, failed: 0 };
/** the failures by what was asked and how it was answered (a status, or the error) */
const failures = new Map<string, number>();
const failed = (what: string) => {
  counts.failed++;
  failures.set(what, (failures.get(what) ?? 0) + 1);
};
const routeOf = (url: string) =>
  new URL(url).pathname.replace(/\/[0-9a-f-]{36}|\/SOAK-[\w-]+/g, '/{id}');
const tally = async (p: Promise<Response>) => {
  try {
    const r = await p;
    await r.arrayBuffer();
    if (r.status === 429) counts.refused++;
    else if (r.ok) counts.ok++;
    else failed(`${r.status} ${routeOf(r.url)}`);
    return r;
  } catch (err) {
    failed(`${(err as Error).name} (no answer)`);
    return undefined;
  }
};

try {
  await waitFor(`${base}/readyz`, service);
  const call = http(base);
  await call('POST', '/operator/catalog/supplier-a', operatorKey, [
    { sku: 'A6-CARD', printMethod: 'digital', printColors: 4, printAreas: [CARD_AREA] },
  ]);
  const simKey = readFileSync(path.join(dataDir, 'partner-sim-api-key'), 'utf8').trim();
  const design = await cardDesign();
  const labels: {
    label: { labelId: string; adminApiKey: string };
    shop: { id: string; apiKey: string };
    projectId: string;
    orders: string[];
    dataset: string | undefined;
    n: number;
  }[] = [];
  for (const n of [1, 2, 3]) {
    const { label, shop } = await labelWithShop(
      call,
      operatorKey,
      {
        label: `Soak ${n}`,
        shop: `Soak ${n}`,
        shopSystem: 'bench',
        shopUrl: 'https://soak.example',
      },
      false,
    );
    await call('POST', `/operator/labels/${label.labelId}/callbacks`, operatorKey, {
      production: { url: `http://127.0.0.1:${port + 1}`, apiKey: simKey },
      environment: 'production',
    });
    await call('PUT', `/api/shop-integration/${shop.id}/webhook`, label.adminApiKey, {
      url: hookUrl,
    });
    // the third label's cards need a proof approved before they print
    if (n === 3)
      await call('PUT', '/api/approval-policy', label.adminApiKey, {
        mode: 'skus',
        skus: ['A6-CARD'],
        approvers: [{ role: 'shop', name: 'Prepress' }],
        finalApprover: 'shop',
        remindAfterHours: 24,
        expireAfterHours: 168,
      });
    const projectId = await editorProject(base, label.labelId, design);
    labels.push({ label, shop, projectId, orders: [], dataset: undefined, n });
  }

  const as = (key: string, init: RequestInit = {}) => ({
    ...init,
    headers: { 'x-api-key': key, ...(init.headers ?? {}) },
  });
  const csv = [
    'firstName,url',
    ...Array.from({ length: 200 }, (_, i) => `N${i},https://e.com/${i}`),
  ].join('\n');
  let second = 0;
  /** one second of the mix, for every label */
  const tick = async () => {
    second++;
    await Promise.all(
      labels.map(async (l) => {
        const admin = l.label.adminApiKey;
        const work: Promise<unknown>[] = [];
        if (second % 10 === l.n) {
          const orderId = `SOAK-${l.n}-${second}`;
          l.orders.push(orderId);
          if (l.orders.length > 50) l.orders.shift();
          work.push(
            tally(
              fetch(`${base}/webhook/notifyorder`, {
                method: 'POST',
                ...as(l.shop.apiKey, { headers: { 'content-type': 'application/json' } }),
                body: JSON.stringify({
                  orderId,
                  items: [{ itemId: 'l1', projectId: l.projectId, quantity: 1 }],
                }),
              }),
            ),
          );
        }
        for (const orderId of l.orders.slice(-3))
          work.push(tally(fetch(`${base}/api/orders/${orderId}`, as(admin))));
        work.push(tally(fetch(`${base}/api/orders?limit=20`, as(admin))));
        if (second % 5 === 0) {
          const head = await fetch(`${base}/api/audit/tree-head`, as(admin)).then((r) =>
            r.ok ? (r.json() as Promise<{ treeSize: number }>) : undefined,
          );
          if (head && head.treeSize > 2)
            work.push(
              tally(fetch(`${base}/api/audit/consistency?from=1&to=${head.treeSize}`, as(admin))),
            );
        }
        // the proofs waiting on the third label's orders, approved
        if (l.n === 3 && second % 5 === 0)
          for (const orderId of l.orders.slice(-5)) {
            const order = await fetch(`${base}/api/orders/${orderId}`, as(admin)).then((r) =>
              r.ok
                ? (r.json() as Promise<{
                    items: { orderItemId: string; approval?: { status: string } }[];
                  }>)
                : undefined,
            );
            const item = order?.items[0];
            if (item?.approval?.status === 'awaiting_approval')
              work.push(
                tally(
                  fetch(`${base}/api/orderitems/${item.orderItemId}/approval`, {
                    method: 'POST',
                    ...as(l.shop.apiKey, { headers: { 'content-type': 'application/json' } }),
                    body: JSON.stringify({ decision: 'approve', onBehalfOf: 'shop' }),
                  }),
                ),
              );
          }
        // a data set a minute; the one before it erased
        if (second % 60 === l.n * 7) {
          const up = await fetch(`${base}/api/datasets`, {
            method: 'POST',
            ...as(admin, { headers: { 'content-type': 'text/csv' } }),
            body: csv,
          }).catch(() => undefined);
          if (up?.status === 201) counts.ok++;
          else if (up?.status === 429) counts.refused++;
          else failed(`${up?.status ?? 'no answer'} POST /api/datasets`);
          const id = up?.ok ? ((await up.json()) as { datasetId: string }).datasetId : undefined;
          if (l.dataset)
            work.push(
              tally(fetch(`${base}/api/datasets/${l.dataset}`, as(admin, { method: 'DELETE' }))),
            );
          l.dataset = id;
        }
        await Promise.all(work);
      }),
    );
  };

  const rss: { minute: number; mainMiB: number; treeMiB: number }[] = [];
  const began = Date.now();
  console.log(`soak: ${MINUTES} min, three labels, the embedded default (pid ${service.pid})`);
  console.log(
    '| minute | main RSS MiB | service tree RSS MiB | requests ok / 429 / failed | webhooks delivered |',
  );
  console.log('|---:|---:|---:|---:|---:|');
  for (let minute = 1; minute <= MINUTES; minute++) {
    while (Date.now() < began + minute * 60_000) {
      const t0 = Date.now();
      await tick();
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - t0))));
    }
    const { mainMiB, totalMiB } = treeRss(service.pid!);
    rss.push({ minute, mainMiB, treeMiB: totalMiB });
    console.log(
      `| ${minute} | ${mainMiB.toFixed(0)} | ${totalMiB.toFixed(0)} | ${counts.ok} / ${counts.refused} / ${counts.failed} | ${delivered} |`,
    );
  }
  console.log(
    `\nfailed requests: ${[...failures].map(([what, n]) => `${n}× ${what}`).join(', ') || 'none'}`,
  );
  // one minute's sample swings by 5% as image processes come and go: the growth is told
  // from the means of the first minutes after warm-up and of the last ones
  const span = Math.max(1, Math.min(5, Math.floor((rss.length - WARMUP) / 2)));
  const mean = (xs: typeof rss, k: 'mainMiB' | 'treeMiB') =>
    xs.reduce((a, x) => a + x[k], 0) / xs.length;
  const early = rss.slice(WARMUP, WARMUP + span);
  const late = rss.slice(-span);
  const growth = (k: 'mainMiB' | 'treeMiB') => {
    const [a, b] = [mean(early, k), mean(late, k)];
    return `${a.toFixed(0)} -> ${b.toFixed(0)} MiB (${(((b - a) / a) * 100).toFixed(1)}%)`;
  };
  console.log(
    `\nminutes ${WARMUP + 1}-${WARMUP + span} against the last ${span}, means: main ${growth('mainMiB')}, service tree ${growth('treeMiB')}; goal: under 5%`,
  );
} finally {
  stopAll();
  await new Promise((r) => setTimeout(r, 3000));
  rmSync(dataDir, { recursive: true, force: true });
}

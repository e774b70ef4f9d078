// npm run bench:attacks
// One label attacks the service with its own keys, one cost class at a time, while
// another label's sales are notified, rendered and read. The service runs as `npm start`
// runs it (one process, all roles) on a PostgreSQL cluster and the Temporal dev server.
// Each attack has a label of its own:
//   - routing: 50 facilities (the maximum), each with a year of holidays, then a
//     20-item sale routed over them;
//   - heavy reads: 300 concurrent audit proofs (inclusion and consistency), three rounds;
//   - uploads: 12 concurrent 5 MB data sets, three rounds;
//   - renders and drawing: a 50-item sale whose 50 proofs are drawn, then the 50 proof
//     pages asked for at once, three rounds;
//   - listings: 300 concurrent order listings (100 a page, filtered), three rounds.
// Meanwhile it asks /readyz every 200 ms (2 s deadline), reads the other label's latest
// order every 200 ms, scrapes the event loop's delay (the service's own p99 for the
// attack's window, /metrics) and samples the service's RSS every second. Goals (issue
// 57): /readyz 200 every time, the other label's read p95 < 300 ms and max < 1 s, loop
// p99 < 100 ms, main RSS growth < 300 MB.
import { randomBytes } from 'node:crypto';
import { http } from '../scripts/lib/demo-catalog.ts';
import { costliestFacility } from '../test/helpers/costliest-facility.ts';
import { CARD_AREA, cardDesign } from './lib/card.ts';
import { benchShop } from './lib/shop.ts';
import { type ServiceStack, startServiceStack } from './lib/stack.ts';
import { treeRss } from './lib/tree-memory.ts';

const GOALS = { readP95Ms: 300, readMaxMs: 1000, loopP99Ms: 100, rssGrowthMiB: 300 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

type Shop = Awaited<ReturnType<typeof benchShop>>;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Figures {
  attack: string;
  did: string;
  readyzAsks: number;
  readyzBad: number;
  readyzSlowestMs: number;
  readP95Ms: number;
  readMaxMs: number;
  reads: number;
  loopP99Ms: number;
  rssGrowthMiB: number;
  otherSales: number;
}

async function main() {
  const metricsToken = randomBytes(24).toString('base64url');
  let stack: ServiceStack | undefined;
  try {
    stack = await startServiceStack({ PARTNER_SIMULATOR: 'on', METRICS_TOKEN: metricsToken });
    const { base } = stack;
    const pid = stack.service.pid!;
    const design = await cardDesign();
    const other = await benchShop(stack, CARD_AREA, design);
    const loopP99 = async () => {
      const text = await fetch(`${base}/metrics`, {
        headers: { authorization: `Bearer ${metricsToken}` },
      }).then((r) => r.text());
      const m = /^editor_platform_nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(text);
      return m ? Number(m[1]) * 1000 : Number.NaN;
    };
    const orderDone = async (shop: Shop, orderId: string, minutes = 10) => {
      for (const end = Date.now() + minutes * 60_000; Date.now() < end; await sleep(250)) {
        const r = await fetch(`${base}/api/orders/${orderId}`, {
          headers: { 'x-api-key': shop.label.adminApiKey },
        });
        const body = (await r.json()) as { status?: string };
        if (r.ok && ['ready', 'failed', 'awaiting_approval'].includes(body.status ?? ''))
          return body;
      }
      throw new Error(`${orderId} not done`);
    };

    /** Runs `attack` while the other label is served; its figures. */
    const underAttack = async (name: string, attack: () => Promise<string>): Promise<Figures> => {
      await loopP99(); // the histogram starts again at each scrape
      const rssBefore = treeRss(pid).mainMiB;
      let rssMax = rssBefore;
      let going = true;
      const readyz: { ok: boolean; ms: number }[] = [];
      const reads: number[] = [];
      let latest: string | undefined;
      let sales = 0;
      const watchers = [
        (async () => {
          while (going) {
            const t0 = performance.now();
            const ok = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
              (r) => r.status === 200,
              () => false,
            );
            readyz.push({ ok, ms: performance.now() - t0 });
            await sleep(200);
          }
        })(),
        (async () => {
          while (going) {
            rssMax = Math.max(rssMax, treeRss(pid).mainMiB);
            await sleep(1000);
          }
        })(),
        (async () => {
          // the other label's sales, one after another, each rendered
          while (going) {
            const orderId = `OTHER-${name}-${++sales}`;
            await other.notify(orderId);
            await orderDone(other, orderId);
            latest = orderId;
            await sleep(2000);
          }
        })(),
        (async () => {
          while (going) {
            if (latest) {
              const t0 = performance.now();
              const r = await fetch(`${base}/api/orders/${latest}`, {
                headers: { 'x-api-key': other.label.adminApiKey },
              });
              await r.arrayBuffer();
              if (r.ok) reads.push(performance.now() - t0);
            }
            await sleep(200);
          }
        })(),
      ];
      const did = await attack();
      going = false;
      await Promise.all(watchers);
      console.log(`[${name}] ${did}`);
      return {
        attack: name,
        did,
        readyzAsks: readyz.length,
        readyzBad: readyz.filter((r) => !r.ok).length,
        readyzSlowestMs: Math.max(0, ...readyz.map((r) => r.ms)),
        readP95Ms: quantile(reads, 0.95),
        readMaxMs: Math.max(0, ...reads),
        reads: reads.length,
        loopP99Ms: await loopP99(),
        rssGrowthMiB: rssMax - rssBefore,
        otherSales: sales,
      };
    };

    const statuses = (rs: Response[]) => {
      const by = new Map<number, number>();
      for (const r of rs) by.set(r.status, (by.get(r.status) ?? 0) + 1);
      return [...by]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${n}×${s}`)
        .join(' ');
    };
    /** ROUNDS rounds of `n` requests at once, each round once the one before is answered */
    const rounds = async (n: number, one: (i: number) => Promise<Response>) => {
      const seen: Response[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const rs = await Promise.all(Array.from({ length: n }, (_, i) => one(i)));
        await Promise.all(rs.map((r) => r.arrayBuffer()));
        seen.push(...rs);
      }
      return seen;
    };
    const items = (shop: Shop, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        itemId: `i${i}`,
        projectId: shop.projectId,
        quantity: 1,
      }));
    const rows: Figures[] = [];

    // routing: the label's facilities at their maximum, a year of holidays each
    {
      const shop = await benchShop(stack, CARD_AREA, design);
      const call = http(base);
      rows.push(
        await underAttack('routing', async () => {
          for (let f = 0; f < 50; f++)
            await call('POST', '/api/facilities', shop.label.adminApiKey, costliestFacility(f));
          const orderId = 'ROUTED-20';
          await call('POST', '/webhook/notifyorder', shop.shop.apiKey, {
            orderId,
            items: items(shop, 20),
          });
          await orderDone(shop, orderId);
          // routing follows the print files: until every item has its decision
          let decided: { routing: string }[] = [];
          for (const end = Date.now() + 10 * 60_000; Date.now() < end; await sleep(250)) {
            const order = (await fetch(`${base}/api/orders/${orderId}`, {
              headers: { 'x-api-key': shop.label.adminApiKey },
            }).then((r) => r.json())) as { items: { routing: string }[] };
            decided = order.items.filter((i) => i.routing !== 'pending');
            if (decided.length === order.items.length) break;
          }
          const routed = decided.filter((i) => i.routing === 'routed').length;
          return `50 facilities × 366 holidays, a 20-item sale: ${routed} items routed`;
        }),
      );
    }

    // heavy reads: audit proofs
    {
      const shop = await benchShop(stack, CARD_AREA, design);
      await shop.notify('AUDITED');
      await orderDone(shop, 'AUDITED');
      const key = shop.label.adminApiKey;
      const head = (await fetch(`${base}/api/audit/tree-head`, {
        headers: { 'x-api-key': key },
      }).then((r) => r.json())) as { treeSize: number };
      const bundle = (await fetch(`${base}/api/orders/AUDITED/audit-bundle`, {
        headers: { 'x-api-key': key },
      }).then((r) => r.json())) as { events: { event: { id: string } }[] };
      const eventId = bundle.events[0]?.event.id;
      rows.push(
        await underAttack('heavy reads', async () => {
          const seen = await rounds(300, (i) =>
            fetch(
              i % 2 === 0 && eventId
                ? `${base}/api/audit/inclusion?eventId=${eventId}`
                : `${base}/api/audit/consistency?from=1&to=${head.treeSize}`,
              { headers: { 'x-api-key': key } },
            ),
          );
          return `${ROUNDS} rounds of 300 audit proofs: ${statuses(seen)}`;
        }),
      );
    }

    // uploads: data sets
    {
      const shop = await benchShop(stack, CARD_AREA, design);
      const row = (i: number) => `Name ${i},https://example.com/${i},${'x'.repeat(60)}\n`;
      let csv = 'name,url,note\n';
      for (let i = 0; csv.length < 5 * 1024 * 1024; i++) csv += row(i);
      rows.push(
        await underAttack('uploads', async () => {
          const seen: Response[] = [];
          const kept: string[] = [];
          for (let round = 0; round < ROUNDS; round++) {
            const rs = await Promise.all(
              Array.from({ length: 12 }, () =>
                fetch(`${base}/api/datasets`, {
                  method: 'POST',
                  headers: { 'x-api-key': shop.label.adminApiKey, 'content-type': 'text/csv' },
                  body: csv,
                }),
              ),
            );
            for (const r of rs) {
              const body = (await r.json()) as { datasetId?: string };
              if (body.datasetId) kept.push(body.datasetId);
            }
            seen.push(...rs);
          }
          for (const id of kept)
            await fetch(`${base}/api/datasets/${id}`, {
              method: 'DELETE',
              headers: { 'x-api-key': shop.label.adminApiKey },
            });
          return `${ROUNDS} rounds of 12 data sets of 5 MB: ${statuses(seen)}`;
        }),
      );
    }

    // renders and drawing: 50 proofs drawn, then their pages asked for at once
    {
      const shop = await benchShop(stack, CARD_AREA, design);
      const call = http(base);
      await call('PUT', '/api/approval-policy', shop.label.adminApiKey, {
        mode: 'skus',
        skus: ['A6-CARD'],
        approvers: [{ role: 'buyer', name: 'Buyer', email: 'buyer@example.com' }],
        finalApprover: 'buyer',
        remindAfterHours: 24,
        expireAfterHours: 168,
      });
      rows.push(
        await underAttack('proofs', async () => {
          const orderId = 'PROOFS-50';
          await call('POST', '/webhook/notifyorder', shop.shop.apiKey, {
            orderId,
            items: items(shop, 50),
          });
          let links: string[] = [];
          for (const end = Date.now() + 15 * 60_000; Date.now() < end; await sleep(500)) {
            const order = (await fetch(`${base}/api/orders/${orderId}`, {
              headers: { 'x-api-key': shop.label.adminApiKey },
            }).then((r) => r.json())) as {
              items?: { approval?: { links?: { url: string }[] } }[];
            };
            links = (order.items ?? []).flatMap((i) => i.approval?.links?.map((l) => l.url) ?? []);
            if (links.length >= 50) break;
          }
          const seen = await rounds(links.length, (i) =>
            fetch(`${base}${new URL(links[i]!).pathname}`),
          );
          return `a 50-item sale's proofs drawn (${links.length} links), ${ROUNDS} rounds of their pages at once: ${statuses(seen)}`;
        }),
      );
    }

    // listings
    {
      const shop = await benchShop(stack, CARD_AREA, design);
      for (let i = 0; i < 20; i++) await shop.notify(`LISTED-${i}`);
      await orderDone(shop, 'LISTED-19');
      const lists = [
        '/api/orders?limit=100',
        '/api/orders?limit=100&status=ready',
        '/api/orders?limit=100&q=LISTED',
      ];
      rows.push(
        await underAttack('listings', async () => {
          const seen = await rounds(300, (i) =>
            fetch(`${base}${lists[i % lists.length]}`, {
              headers: { 'x-api-key': shop.label.adminApiKey },
            }),
          );
          return `${ROUNDS} rounds of 300 order listings: ${statuses(seen)}`;
        }),
      );
    }

    console.log(
      '\n| attack | what it did | /readyz not 200 (of asks), slowest | other label read p95 / max (reads) | loop p99 | main RSS growth | other label sales |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|');
    for (const f of rows)
      console.log(
        `| ${f.attack} | ${f.did} | ${f.readyzBad} (${f.readyzAsks}), ${f.readyzSlowestMs.toFixed(0)} ms | ${f.readP95Ms.toFixed(0)} / ${f.readMaxMs.toFixed(0)} ms (${f.reads}) | ${f.loopP99Ms.toFixed(0)} ms | ${f.rssGrowthMiB.toFixed(0)} MiB | ${f.otherSales} |`,
      );
    const misses = rows.flatMap((f) => [
      ...(f.readyzBad > 0 ? [`${f.attack}: /readyz not 200 ${f.readyzBad} times`] : []),
      ...(f.readP95Ms >= GOALS.readP95Ms
        ? [`${f.attack}: read p95 ${f.readP95Ms.toFixed(0)} ms`]
        : []),
      ...(f.readMaxMs >= GOALS.readMaxMs
        ? [`${f.attack}: read max ${f.readMaxMs.toFixed(0)} ms`]
        : []),
      ...(f.loopP99Ms >= GOALS.loopP99Ms
        ? [`${f.attack}: loop p99 ${f.loopP99Ms.toFixed(0)} ms`]
        : []),
      ...(f.rssGrowthMiB >= GOALS.rssGrowthMiB
        ? [`${f.attack}: RSS +${f.rssGrowthMiB.toFixed(0)} MiB`]
        : []),
    ]);
    console.log(
      `\ngoals: /readyz always 200 within 2 s, read p95 < ${GOALS.readP95Ms} ms and max < ${GOALS.readMaxMs} ms, loop p99 < ${GOALS.loopP99Ms} ms, RSS growth < ${GOALS.rssGrowthMiB} MiB: ${misses.length === 0 ? 'all met' : `missed: ${misses.join('; ')}`}`,
    );
  } finally {
    await stack?.stop();
  }
}

await main();

// npm run bench:pipeline
// The print pipeline end to end: N one-item orders (an A6 area with a 2400x1600 photo,
// a text and the barcode), HTTP notification to `ready`, against rendering the same
// item by calling the render function directly in this process (the raw baseline),
// in the same run: before the service starts and again after it stopped (their mean is
// the baseline: this machine's speed drifts by 10-20% within minutes). The service makes
// PDF/X-4 in CMYK and preflights each file; the raw baseline makes the same CMYK file (and
// no preflight). Also the latency of a single one-item order against one raw render (the
// client waits for the order's change; and, for comparison, polls every 10 ms), and
// the peak RSS of the service process (API, worker and projector in one).
// BENCH_STORAGE=s3: the service keeps print files and images in a MinIO server on this
// machine (STORAGE_URL) instead of under DATA_DIR.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { http } from '../scripts/lib/demo-catalog.ts';
import { IMAGE_V8_FLAGS } from '../src/print/image-work.ts';
import { FilesystemStorage } from '../src/storage/filesystem.ts';
import { type S3Location, S3Storage } from '../src/storage/s3.ts';
import { jaegerBinary, startJaeger } from '../test/helpers/jaeger.ts';
import { type Minio, minioBinary, startMinio } from '../test/helpers/minio.ts';
import { CARD_AREA, cardDesign } from './lib/card.ts';
import { cpuSnapshot, cpuSpent, threadSnapshot, threadsSpent } from './lib/cpu.ts';
import { figure } from './lib/figures.ts';
import { benchShop } from './lib/shop.ts';
import {
  printTopStatements,
  resetStatementStats,
  type ServiceStack,
  startServiceStack,
} from './lib/stack.ts';
import { sampleTreeMemory } from './lib/tree-memory.ts';

const ORDERS = Math.min(200, Number(process.env.BENCH_ORDERS ?? 40)); // one page of the order list
const SINGLES = Number(process.env.BENCH_SINGLES ?? 15);
const STORAGE = process.env.BENCH_STORAGE === 's3' ? 's3' : 'filesystem';

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
/** how much later than the raw render, signed: +32, -2 */
const over = (ms: number, raw: number) =>
  `${ms >= raw ? '+' : '-'}${Math.abs(ms - raw).toFixed(0)}`;

type Call = ReturnType<typeof http>;
interface RawFigures {
  single: number[];
  rate: number;
  cpuSeconds: number;
  threads: string;
}

/**
 * Waits for an order to be ready as a client that does not poll: each request waits
 * for the order's next change (`If-None-Match` with `Prefer: wait`), so the answer
 * comes when the read model commits it and the service does no work meanwhile.
 */
async function readyWaiting(base: string, adminKey: string, orderId: string): Promise<void> {
  let version: string | undefined;
  for (;;) {
    const r = await fetch(`${base}/api/orders/${orderId}`, {
      headers: {
        'x-api-key': adminKey,
        ...(version ? { 'if-none-match': version, prefer: 'wait=10' } : {}),
      },
    });
    if (r.status === 304) continue;
    if (r.status === 404) {
      // not in the read model yet: the notification's answer does not wait for it
      await r.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 5));
      continue;
    }
    const o = (await r.json()) as { status: string; reason?: string };
    if (r.status !== 200) throw new Error(`${orderId}: ${r.status} ${JSON.stringify(o)}`);
    if (o.status === 'ready') return;
    if (o.status === 'failed') throw new Error(`${orderId} failed: ${o.reason}`);
    version = r.headers.get('etag') ?? undefined;
  }
}

/**
 * The orders left when the bench stops polling the list and waits for each: about three
 * polls' worth at this machine's rate (two finish in 250 ms), so the last ones do not
 * all finish between two polls.
 */
const LAST_WAITED = 6;

/**
 * ORDERS notifications at once, watched through one order-list request every 250 ms
 * (not one poll per order: 160 requests a second would measure the bench's polling as
 * much as the pipeline) until at most LAST_WAITED are not ready; those last are waited for
 * (readyWaiting), so the end of the burst is seen when it happens, not up to 250 ms later.
 */
async function burst(
  call: Call,
  notify: (orderId: string) => Promise<unknown>,
  waitReady: (orderId: string) => Promise<void>,
  adminKey: string,
  prefix: string,
) {
  const ids = Array.from({ length: ORDERS }, (_, i) => `${prefix}${i}`);
  await Promise.all(ids.map(notify));
  for (;;) {
    const page = await call(
      'GET',
      `/api/orders?q=${prefix}&limit=${Math.min(200, ORDERS)}`,
      adminKey,
    ).catch(() => undefined);
    const rows: { status: string; orderId: string }[] = page?.orders ?? [];
    const failed = rows.find((o) => o.status === 'failed');
    if (failed) throw new Error(`${failed.orderId} failed`);
    const pending = rows.filter((o) => o.status !== 'ready');
    if (rows.length >= ORDERS && pending.length <= LAST_WAITED) {
      await Promise.all(pending.map((o) => waitReady(o.orderId)));
      return;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

const peakRssMiB = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** The peak RSS of each render process the service runs now (its image processes that rendered). */
function renderProcessPeaks(servicePid: number): number[] {
  const children = readFileSync(`/proc/${servicePid}/task/${servicePid}/children`, 'utf8')
    .split(' ')
    .filter(Boolean)
    .map(Number);
  return children
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('image-process');
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(peakRssMiB);
}

/**
 * The same burst against the split deployment (one process a role, on one host), for
 * the peak RSS of each role.
 */
async function splitPeaks(design: unknown): Promise<string> {
  const stack = await startServiceStack({ PARTNER_SIMULATOR: 'on' }, [
    'api',
    'worker',
    'projector',
  ]);
  try {
    const { call, label, notify } = await benchShop(stack, CARD_AREA, design);
    await burst(
      call,
      notify,
      (orderId) => readyWaiting(stack.base, label.adminApiKey, orderId),
      label.adminApiKey,
      'SPLIT-',
    );
    return [...stack.roles]
      .map(([role, proc]) => `${role} ${peakRssMiB(proc.pid!).toFixed(0)} MiB`)
      .join(', ');
  } finally {
    await stack.stop();
  }
}

/**
 * The burst's orders a second with tracing on (every trace sampled, exported over OTLP
 * to a Jaeger on this machine) against off: a service stack each, off, on, on, off, and
 * that again (BENCH_TRACING_ROUNDS, 8): one burst's rate varies by up to 9% between two
 * rounds of the same kind, so four of each are averaged.
 */
async function tracingRatio(design: unknown): Promise<string> {
  const binary = jaegerBinary();
  if (!binary) return 'not measured: no Jaeger binary (scripts/install-jaeger.sh)';
  const jaeger = await startJaeger(binary);
  try {
    const rates: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const rounds = Number(process.env.BENCH_TRACING_ROUNDS ?? 8);
    for (const on of Array.from({ length: rounds }, (_, i) => i % 4 === 1 || i % 4 === 2)) {
      const stack = await startServiceStack({
        PARTNER_SIMULATOR: 'on',
        ...(on
          ? { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_TRACES_SAMPLER: 'always_on' }
          : {}),
      });
      try {
        const { call, label, notify } = await benchShop(stack, CARD_AREA, design);
        const ready = (orderId: string) => readyWaiting(stack.base, label.adminApiKey, orderId);
        await notify('WARM-UP');
        await ready('WARM-UP');
        const began = performance.now();
        await burst(call, notify, ready, label.adminApiKey, 'TRACED-');
        rates[on ? 'on' : 'off'].push(ORDERS / ((performance.now() - began) / 1000));
      } finally {
        await stack.stop();
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const spans = (await jaeger.allSpans('editor-platform')).length;
    figure('tracing.ratio', mean(rates.on) / mean(rates.off));
    return `off ${rates.off.map((r) => r.toFixed(2)).join(', ')} orders/s, on ${rates.on.map((r) => r.toFixed(2)).join(', ')} orders/s: ratio ${(mean(rates.on) / mean(rates.off)).toFixed(3)} (goal >= 0.95); Jaeger holds ${spans} spans of the traced rounds`;
  } finally {
    await jaeger.stop();
  }
}

async function main() {
  // BENCH_TRACING=only: just the tracing comparison
  if (process.env.BENCH_TRACING === 'only') {
    console.log(
      `${ORDERS} orders with tracing on against off, same run: ${await tracingRatio(await cardDesign())}`,
    );
    return;
  }
  let stack: ServiceStack | undefined;
  let minio: Minio | undefined;
  try {
    const design = await cardDesign();
    const area = CARD_AREA;
    // raw baseline (bench/lib/raw-render.ts): in a process of its own under the render
    // processes' V8 flags, before the service starts and again after it stopped, so a
    // machine that drifts during the run moves the baseline with the pipeline
    const designFile = path.join(
      mkdtempSync(path.join(os.tmpdir(), 'bench-design-')),
      'design.json',
    );
    writeFileSync(designFile, JSON.stringify(design));
    const raw = (): RawFigures => {
      const r = spawnSync(
        process.execPath,
        [
          ...process.execArgv,
          ...IMAGE_V8_FLAGS,
          fileURLToPath(new URL('./lib/raw-render.ts', import.meta.url)),
          designFile,
          String(ORDERS),
          String(SINGLES),
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      if (r.status !== 0) throw new Error(`the raw render ended with ${r.status}`);
      return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    };
    const rawBefore = raw();

    // the service
    let storage: Record<string, string> = {};
    let s3Location: S3Location | undefined;
    if (STORAGE === 's3') {
      const binary = minioBinary();
      if (!binary)
        throw new Error('no MinIO binary: run scripts/install-minio.sh or set MINIO_PATH');
      minio = await startMinio(binary);
      const b = await minio.bucket();
      s3Location = { ...b, prefix: 'bench/' };
      storage = {
        STORAGE_URL: `s3://${b.bucket}/bench?endpoint=${encodeURIComponent(minio.endpoint)}`,
        S3_ACCESS_KEY_ID: minio.accessKeyId,
        S3_SECRET_ACCESS_KEY: minio.secretAccessKey,
      };
    }
    stack = await startServiceStack({ PARTNER_SIMULATOR: 'on', ...storage });
    const { call, label, notify } = await benchShop(stack, area, design);
    const waitReady = (orderId: string) => readyWaiting(stack!.base, label.adminApiKey, orderId);
    // as clients did before they could wait: a poll every 10 ms
    const readyPolled = async (orderId: string) => {
      for (;;) {
        const o = await call('GET', `/api/orders/${orderId}`, label.adminApiKey).catch(
          () => undefined,
        );
        if (o?.status === 'ready') return;
        if (o?.status === 'failed') throw new Error(`${orderId} failed: ${o.reason}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await notify('WARM-UP');
    await waitReady('WARM-UP');

    // one order's latency, from its notification to the answer that says it is ready
    const singles = async (prefix: string, ready: (orderId: string) => Promise<void>) => {
      const latency: number[] = [];
      for (let i = 0; i < SINGLES; i++) {
        const t0 = performance.now();
        await notify(`${prefix}${i}`);
        await ready(`${prefix}${i}`);
        latency.push(performance.now() - t0);
      }
      return latency;
    };
    const latency = await singles('ONE-', waitReady);
    const polledLatency = await singles('POLLED-', readyPolled);
    if (process.env.BENCH_PHASES) {
      const h = await call('GET', '/api/orders/ONE-3/history', label.adminApiKey);
      const t0 = Date.parse(h[0].at);
      console.log(
        h
          .map((e: { type: string; at: string }) => `${e.type} +${Date.parse(e.at) - t0} ms`)
          .join('\n'),
      );
    }
    // the previews of the orders so far are drawn once the worker has rendered nothing for
    // a second: waited for here, so the burst measures its own orders only (its own
    // previews come after it, as theirs came after them)
    const previewStore =
      STORAGE === 's3'
        ? S3Storage.open(s3Location!, 'print-files')
        : await FilesystemStorage.open(path.join(stack.dataDir, 'print-files'));
    const previewsDrawn = async () =>
      (await previewStore.list('')).filter((k) => k.endsWith('-p1.png')).length;
    const earlier = 2 * SINGLES + 1;
    for (const deadline = Date.now() + 120_000; ; ) {
      const drawn = await previewsDrawn();
      if (drawn >= earlier) break;
      if (Date.now() > deadline) throw new Error(`only ${drawn} of ${earlier} previews drawn`);
      await new Promise((r) => setTimeout(r, 250));
    }
    // the service's transactions on its database, counted as they end (db_transactions_total):
    // PostgreSQL's own pg_stat_database reaches them only when each connection flushes
    // its statistics, up to seconds later, and an idle connection's not until it is used again
    const metric = async (name: string, outcome?: string) => {
      const text = await fetch(`${stack!.base}/metrics`, {
        headers: { 'x-api-key': stack!.operatorKey },
      }).then((r) => r.text());
      const labels = outcome ? `\\{outcome="${outcome}"\\}` : '';
      return Number(new RegExp(`^${name}${labels} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    };
    const transactions = () => metric('editor_platform_db_transactions_total');
    // the service's own render time per item (render_duration_seconds: from the
    // activity's start of rendering to the file recorded)
    const renderSeconds = async () => ({
      sum: await metric('editor_platform_render_duration_seconds_sum', 'ready'),
      count: await metric('editor_platform_render_duration_seconds_count', 'ready'),
    });
    const rendersBefore = await renderSeconds();
    const txBefore = await transactions();
    await resetStatementStats(stack.databaseUrl);
    const cpuBefore = cpuSnapshot();
    const threadsBefore = threadSnapshot(stack.service.pid!);
    const treeMemory = sampleTreeMemory(stack.service.pid!);
    const began = performance.now();
    const burstFrom = process.hrtime.bigint() / 1000n;
    await burst(call, notify, waitReady, label.adminApiKey, 'MANY-');
    const burstSeconds = (performance.now() - began) / 1000;
    const previewsDuring = (await previewsDrawn()) - earlier;
    console.log(`previews drawn during the burst: ${previewsDuring}`);
    // BENCH_WINDOW=1: the burst's bounds, to cut a system-wide `perf record -k CLOCK_MONOTONIC` to
    // it
    if (process.env.BENCH_PROFILE_DIR || process.env.BENCH_WINDOW)
      console.log(`burst window (monotonic µs): ${burstFrom} ${process.hrtime.bigint() / 1000n}`);
    const pipelineRate = ORDERS / burstSeconds;
    // CPU up to the burst's end (the previews drawn after it are not its cost)
    const serviceThreadsSpent = threadsSpent(threadsBefore, threadSnapshot(stack.service.pid!));
    const cpu = cpuSpent(cpuBefore, cpuSnapshot(), {
      service: stack.service.pid,
      'bench (this process)': process.pid,
    });
    const txInBurst = ((await transactions()) - txBefore) / ORDERS;
    // BENCH_PG_STATS=1: the burst's most frequent statements, per order
    if (process.env.BENCH_PG_STATS) console.log('statements per order during the burst:');
    await printTopStatements(stack.databaseUrl, 25, { calls: true, per: ORDERS });
    // and all of its orders' work: with their previews, drawn after it
    for (const deadline = Date.now() + 120_000; ; ) {
      const drawn = await previewsDrawn();
      if (drawn >= earlier + ORDERS) break;
      if (Date.now() > deadline)
        throw new Error(`only ${drawn - earlier} of the burst's ${ORDERS} previews drawn`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const txAll = ((await transactions()) - txBefore) / ORDERS;
    const rendersAfter = await renderSeconds();
    const serviceRenderMs =
      (1000 * (rendersAfter.sum - rendersBefore.sum)) /
      Math.max(1, rendersAfter.count - rendersBefore.count);
    const peakRss = peakRssMiB(stack.service.pid!);
    const renderPeaks = renderProcessPeaks(stack.service.pid!);
    const treePeak = treeMemory.stop();
    await stack.stop();
    stack = undefined;
    const rawAfter = raw();
    const rawRate = (rawBefore.rate + rawAfter.rate) / 2;
    const single = [...rawBefore.single, ...rawAfter.single];

    figure('pipeline.throughput_ratio', pipelineRate / rawRate);
    figure('pipeline.p50_over_raw_ms', pct(latency, 50) - pct(single, 50));
    figure('pipeline.tx_per_order', txInBurst);
    figure('pipeline.tree_peak_mib', treePeak.totalMiB);
    console.log(
      `\n${ORDERS} one-item orders (A6, 2400x1600 photo, text, barcode); ${SINGLES} single orders for latency; files ${STORAGE === 's3' ? 'in S3 (MinIO on this machine)' : 'under DATA_DIR'}\n`,
    );
    console.log('| measure | pipeline (HTTP to ready) | raw render | ratio |');
    console.log('|---|---:|---:|---:|');
    console.log(
      `| throughput, items/s | ${pipelineRate.toFixed(2)} | ${rawRate.toFixed(2)} (2 at a time; ${rawBefore.rate.toFixed(2)} before the service ran, ${rawAfter.rate.toFixed(2)} after) | ${(pipelineRate / rawRate).toFixed(2)} |`,
    );
    console.log(
      `| one item, p50 ms | ${pct(latency, 50).toFixed(0)} | ${pct(single, 50).toFixed(0)} | ${over(pct(latency, 50), pct(single, 50))} ms |`,
    );
    console.log(
      `| one item, p95 ms | ${pct(latency, 95).toFixed(0)} | ${pct(single, 95).toFixed(0)} | ${over(pct(latency, 95), pct(single, 95))} ms |`,
    );
    console.log(
      `| one item polled every 10 ms instead, p50 / p95 ms | ${pct(polledLatency, 50).toFixed(0)} / ${pct(polledLatency, 95).toFixed(0)} | | ${over(pct(polledLatency, 50), pct(single, 50))} / ${over(pct(polledLatency, 95), pct(single, 95))} ms |`,
    );
    console.log(
      `\nCPU during the ${ORDERS} orders (${burstSeconds.toFixed(1)} s wall, ${(2 * burstSeconds).toFixed(1)} CPU-s on 2 cores): ${cpu
        .filter(([, s]) => s >= 0.1)
        .map(([name, s]) => `${name} ${s.toFixed(1)} s`)
        .join(
          ', ',
        )}; the raw render used ${rawBefore.cpuSeconds.toFixed(1)} / ${rawAfter.cpuSeconds.toFixed(1)} CPU-s (before / after) for as many (${((2 * ORDERS) / rawRate).toFixed(1)} on 2 cores)`,
    );
    console.log(
      `by thread: service ${serviceThreadsSpent}; raw render (before) ${rawBefore.threads}`,
    );
    console.log(
      `PostgreSQL transactions per order (the service's, counted as they end): ${txInBurst.toFixed(1)} during the burst; ${txAll.toFixed(1)} with its previews (drawn after it) and a second more`,
    );
    console.log(
      `render time per item, 2 at a time: in the service's activity ${serviceRenderMs.toFixed(0)} ms, raw ${((2 * 1000) / rawRate).toFixed(0)} ms`,
    );
    console.log(
      `\npeak RSS of the service process (API + worker + projector): ${peakRss.toFixed(0)} MiB; of its image processes (renders, previews): ${renderPeaks.map((m) => m.toFixed(0)).join(' / ')} MiB (each its own peak, summed ${(peakRss + renderPeaks.reduce((a, b) => a + b, 0)).toFixed(0)} MiB)`,
    );
    console.log(
      `peak RSS of the whole service tree at once (sampled every 100 ms from the burst to its previews): ${treePeak.totalMiB.toFixed(0)} MiB in ${treePeak.processes} processes, of which ${treePeak.mainMiB.toFixed(0)} MiB the main process`,
    );
    if (process.env.BENCH_SPLIT !== '0')
      console.log(
        `peak RSS per role in the split deployment, the same burst of ${ORDERS} orders: ${await splitPeaks(design)}`,
      );
    if (process.env.BENCH_TRACING !== '0')
      console.log(`the same burst with tracing on against off: ${await tracingRatio(design)}`);
  } finally {
    await stack?.stop();
    await minio?.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

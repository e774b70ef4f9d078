// npm run bench:pipeline
// The print pipeline end to end: N one-item orders (an A6 area with a 2400x1600 photo,
// a text and the barcode), HTTP notification to `ready`, against rendering the same
// item by calling the render function directly in this process (the raw baseline),
// in the same run. The service makes PDF/X-4 in CMYK and preflights each file; the
// raw baseline makes the same CMYK file (and no preflight). Also the latency of a single one-item order against one raw render,
// and the peak RSS of the service process (API, worker and projector in one).
// BENCH_STORAGE=s3: the service keeps print files and images in a MinIO server on this
// machine (STORAGE_URL) instead of under DATA_DIR.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { renderPrintFile } from '../src/print/pdf.ts';
import { defaultOutputProfile } from '../src/print/profiles.ts';
import { type Minio, minioBinary, startMinio } from '../test/helpers/minio.ts';
import { benchShop } from './lib/shop.ts';
import { type ServiceStack, startServiceStack } from './lib/stack.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 40);
const SINGLES = Number(process.env.BENCH_SINGLES ?? 15);
const STORAGE = process.env.BENCH_STORAGE === 's3' ? 's3' : 'filesystem';
const PARALLEL = 2; // the machine's cores: raw renders run two at a time, like the worker's items

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main() {
  let stack: ServiceStack | undefined;
  let minio: Minio | undefined;
  try {
    const photo = await sharp({
      create: {
        width: 2400,
        height: 1600,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .jpeg({ quality: 85 })
      .toBuffer();
    const design = {
      areas: [
        {
          printArea: 'FRONT',
          layers: [
            {
              type: 'image' as const,
              src: `data:image/jpeg;base64,${photo.toString('base64')}`,
              x: 5,
              y: 5,
              width: 95,
              height: 63,
              rotation: 0,
            },
            {
              type: 'text' as const,
              text: 'Happy birthday, Ada!',
              x: 5,
              y: 80,
              fontSize: 18,
              color: '#1a2b3c',
            },
          ],
        },
      ],
    };
    const area = { code: 'FRONT', name: 'Front', widthMm: 105, heightMm: 148 };

    // raw baseline: the render function in a loop, two at a time, making the same
    // PDF/X-4 file in CMYK with the default output profile (no preflight, no storage)
    const profile = defaultOutputProfile();
    const rawItem = (n: number) => ({
      orderId: `RAW-${n}`,
      orderItemId: randomUUID(),
      sku: 'A6-CARD',
      printMethod: 'digital',
      printColors: 4,
      printAreas: [area],
      design,
      barcode: { format: 'code128' as const, value: randomUUID() },
      createdAt: new Date(),
      profile,
      inks: false,
      cropMarks: false,
    });
    await renderPrintFile(rawItem(0)); // warm up
    const single: number[] = [];
    for (let i = 0; i < SINGLES; i++) {
      const t0 = performance.now();
      await renderPrintFile(rawItem(i));
      single.push(performance.now() - t0);
    }
    let next = 0;
    const rawBegan = performance.now();
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < ORDERS) await renderPrintFile(rawItem(next++));
      }),
    );
    const rawRate = ORDERS / ((performance.now() - rawBegan) / 1000);

    // the service
    let storage: Record<string, string> = {};
    if (STORAGE === 's3') {
      const binary = minioBinary();
      if (!binary)
        throw new Error('no MinIO binary: run scripts/install-minio.sh or set MINIO_PATH');
      minio = await startMinio(binary);
      const b = await minio.bucket();
      storage = {
        STORAGE_URL: `s3://${b.bucket}/bench?endpoint=${encodeURIComponent(minio.endpoint)}`,
        S3_ACCESS_KEY_ID: minio.accessKeyId,
        S3_SECRET_ACCESS_KEY: minio.secretAccessKey,
      };
    }
    stack = await startServiceStack({ PARTNER_SIMULATOR: 'on', ...storage });
    const { call, label, shop, projectId } = await benchShop(stack, area, design);
    const notify = (orderId: string) =>
      call('POST', '/webhook/notifyorder', shop.apiKey, {
        orderId,
        items: [{ itemId: 'l1', projectId, quantity: 1 }],
      });
    // polling costs the service CPU: tight for one order's latency, loose for throughput
    const ready = async (orderId: string, everyMs = 10) => {
      for (;;) {
        const o = await call('GET', `/api/orders/${orderId}`, label.adminApiKey).catch(
          () => undefined,
        );
        if (o?.status === 'ready') return;
        if (o?.status === 'failed') throw new Error(`${orderId} failed: ${o.reason}`);
        await new Promise((r) => setTimeout(r, everyMs));
      }
    };
    await notify('WARM-UP');
    await ready('WARM-UP');

    const latency: number[] = [];
    for (let i = 0; i < SINGLES; i++) {
      const t0 = performance.now();
      await notify(`ONE-${i}`);
      await ready(`ONE-${i}`);
      latency.push(performance.now() - t0);
    }
    if (process.env.BENCH_PHASES) {
      const h = await call('GET', '/api/orders/ONE-3/history', label.adminApiKey);
      const t0 = Date.parse(h[0].at);
      console.log(
        h
          .map((e: { type: string; at: string }) => `${e.type} +${Date.parse(e.at) - t0} ms`)
          .join('\n'),
      );
    }
    const began = performance.now();
    const ids = Array.from({ length: ORDERS }, (_, i) => `MANY-${i}`);
    await Promise.all(ids.map(notify));
    await Promise.all(ids.map((id) => ready(id, 250)));
    const pipelineRate = ORDERS / ((performance.now() - began) / 1000);
    const status = readFileSync(`/proc/${stack.service.pid}/status`, 'utf8');
    const peakRss = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;

    console.log(
      `\n${ORDERS} one-item orders (A6, 2400x1600 photo, text, barcode); ${SINGLES} single orders for latency; files ${STORAGE === 's3' ? 'in S3 (MinIO on this machine)' : 'under DATA_DIR'}\n`,
    );
    console.log('| measure | pipeline (HTTP to ready) | raw render | ratio |');
    console.log('|---|---:|---:|---:|');
    console.log(
      `| throughput, items/s | ${pipelineRate.toFixed(2)} | ${rawRate.toFixed(2)} (2 at a time) | ${(pipelineRate / rawRate).toFixed(2)} |`,
    );
    console.log(
      `| one item, p50 ms | ${pct(latency, 50).toFixed(0)} | ${pct(single, 50).toFixed(0)} | +${(pct(latency, 50) - pct(single, 50)).toFixed(0)} ms |`,
    );
    console.log(
      `| one item, p95 ms | ${pct(latency, 95).toFixed(0)} | ${pct(single, 95).toFixed(0)} | +${(pct(latency, 95) - pct(single, 95)).toFixed(0)} ms |`,
    );
    console.log(
      `\npeak RSS of the service process (API + worker + projector): ${peakRss.toFixed(0)} MiB`,
    );
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

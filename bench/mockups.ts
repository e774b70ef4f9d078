// npm run bench:mockups
// Mockups of 2,000 x 2,000 px (issue 26): a print file's area (a photo and a line of
// text, 250 x 200 mm) on a 2,000 x 2,000 px product photo, through a trapezoid with a
// multiply blend, against a plain sharp composite of the same sizes in the same run (the
// artwork, already a raster of the quad's size, laid on the photo with libvips' own
// multiply). Three ways of drawing the mockup:
//   - full: what the service does for an order item: the stored PDF parsed, its trim box
//     rasterised by pdf.js at the quad's size, warped, blended, encoded;
//   - from raster: the artwork already rasterised (the warp, blend and encoding only);
// and the composite. One core: one process, libvips on one thread, runs taken A-B-B-A
// after warm-up; p50 and p95 of each. Both cores: two processes of each at once, for a
// fixed time, in mockups/s.
import { fork, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { drawMockups, drawOnPhoto, type TemplateToDraw } from '../src/mockup/draw.ts';
import type { Quad } from '../src/mockup/quad.ts';
import { quadSpan } from '../src/mockup/quad.ts';
import type { Rgba } from '../src/mockup/warp.ts';
import { IMAGE_V8_FLAGS } from '../src/print/image-work.ts';
import { renderPdf } from '../src/print/render-job.ts';
import { figure } from './lib/figures.ts';

sharp.concurrency(1);
const SIZE = 2000;
const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const FORMATS = (process.env.BENCH_FORMATS ?? 'jpeg,png').split(',') as ('jpeg' | 'png')[];
const QUAD: Quad = [
  [520, 430],
  [1480, 430],
  [1600, 1480],
  [400, 1480],
];

const noise = (width: number, height: number, mean: number) =>
  sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean, sigma: 30 },
    },
  })
    .jpeg({ quality: 90 })
    .toBuffer();

async function inputs() {
  // a product photo with shading: a horizontal gradient times noise
  const gradient = Buffer.alloc(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++)
      gradient.fill(110 + Math.round((x / SIZE) * 140), (y * SIZE + x) * 3, (y * SIZE + x) * 3 + 3);
  const photo = await sharp(gradient, { raw: { width: SIZE, height: SIZE, channels: 3 } })
    .composite([{ input: await noise(SIZE, SIZE, 200), blend: 'multiply' }])
    .jpeg({ quality: 90 })
    .toBuffer();
  const art = await noise(1500, 1200, 128);
  const pdf = await renderPdf({
    renderer: 2,
    item: {
      orderId: 'bench',
      orderItemId: '00000000-0000-4000-8000-000000000000',
      sku: 'BENCH',
      printMethod: 'digital',
      printColors: 4,
      printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 250, heightMm: 200 }],
      design: {
        areas: [
          {
            printArea: 'FRONT',
            layers: [
              {
                type: 'image',
                src: `data:image/jpeg;base64,${art.toString('base64')}`,
                x: 0,
                y: 0,
                width: 250,
                height: 200,
                rotation: 0,
              },
              { type: 'text', text: 'Mockup bench', x: 20, y: 170, fontSize: 36, color: '#c0102a' },
            ],
          },
        ],
      },
      barcode: { format: 'code128', value: 'BENCH' },
      createdAt: '2026-01-01T00:00:00.000Z',
    },
    images: [],
    inks: false,
    cropMarks: false,
    maxInkCoverage: 300,
  });
  const template: TemplateToDraw = {
    photo: { sha256: 'bench-photo', bytes: photo, width: SIZE, height: SIZE },
    areas: [{ page: 0, corners: QUAD, blend: 'multiply' }],
  };
  // the composite's artwork: the quad's span, as a raster (what the mockup warps)
  const span = quadSpan(QUAD);
  const aw = Math.round(span.across);
  const ah = Math.round(span.down);
  const raster = await sharp(art).resize(aw, ah, { fit: 'fill' }).ensureAlpha().raw().toBuffer();
  const artwork: Rgba = { width: aw, height: ah, data: new Uint8Array(raster) };
  const artworkPng = await sharp(raster, { raw: { width: aw, height: ah, channels: 4 } })
    .png()
    .toBuffer();
  return { photo, pdf, template, artwork, artworkPng };
}

type Inputs = Awaited<ReturnType<typeof inputs>>;
type Case = 'full' | 'raster' | 'composite';

function runner(inp: Inputs, kind: Case, format: 'jpeg' | 'png'): () => Promise<unknown> {
  if (kind === 'full')
    return () =>
      drawMockups({ source: { pdf: inp.pdf }, templates: [inp.template], width: SIZE, format });
  if (kind === 'raster')
    return () => drawOnPhoto(inp.template, SIZE, format, async () => inp.artwork);
  const left = Math.min(...QUAD.map((p) => p[0]));
  const top = Math.min(...QUAD.map((p) => p[1]));
  return () => {
    const image = sharp(inp.photo).composite([
      { input: inp.artworkPng, left, top, blend: 'multiply' },
    ]);
    return (
      format === 'png'
        ? image.png({ compressionLevel: 6, adaptiveFiltering: false })
        : image.jpeg({ quality: 90, optimiseCoding: false })
    ).toBuffer();
  };
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function child(kind: Case, format: 'jpeg' | 'png') {
  const run = runner(await inputs(), kind, format);
  for (let i = 0; i < 3; i++) await run();
  process.send?.('ready');
  await new Promise<void>((r) => process.once('message', () => r()));
  const until = performance.now() + SECONDS * 1000;
  let n = 0;
  while (performance.now() < until) {
    await run();
    n++;
  }
  process.send?.(n);
}

async function bothCores(kind: Case, format: 'jpeg' | 'png'): Promise<number> {
  const self = fileURLToPath(import.meta.url);
  const children = [0, 1].map(() => fork(self, ['child', kind, format], { stdio: 'inherit' }));
  await Promise.all(children.map((c) => new Promise((r) => c.once('message', r))));
  const counts = children.map(
    (c) => new Promise<number>((r) => c.once('message', (n) => r(Number(n)))),
  );
  for (const c of children) c.send('go');
  const total = (await Promise.all(counts)).reduce((a, b) => a + b, 0);
  for (const c of children) c.kill();
  return total / SECONDS;
}

async function main() {
  const inp = await inputs();
  console.log(
    `photo ${SIZE} x ${SIZE} px (${(inp.photo.length / 1e6).toFixed(1)} MB JPEG), print file ${(inp.pdf.length / 1e6).toFixed(1)} MB, quad spans ${Math.round(quadSpan(QUAD).across)} x ${Math.round(quadSpan(QUAD).down)} px, ${RUNS} runs each`,
  );
  console.log(
    '| format | case | p50 ms | p95 ms | one core/s | ratio to composite | both cores/s | ratio to composite |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const format of FORMATS) {
    const runs: Record<Case, () => Promise<unknown>> = {
      full: runner(inp, 'full', format),
      raster: runner(inp, 'raster', format),
      composite: runner(inp, 'composite', format),
    };
    const times: Record<Case, number[]> = { full: [], raster: [], composite: [] };
    for (const k of Object.keys(runs) as Case[]) for (let i = 0; i < 3; i++) await runs[k]();
    // A-B-B-A: drift of the machine falls on both sides
    for (let i = 0; i < RUNS; i++) {
      const order: Case[] =
        i % 2 === 0 ? ['composite', 'full', 'raster'] : ['raster', 'full', 'composite'];
      for (const k of order) {
        const began = performance.now();
        await runs[k]();
        times[k].push(performance.now() - began);
      }
    }
    const both: Record<Case, number> = {
      composite: await bothCores('composite', format),
      full: await bothCores('full', format),
      raster: await bothCores('raster', format),
    };
    const base = pct(times.composite, 0.5);
    figure(`mockups.${format}_full_p50_ms`, pct(times.full, 0.5));
    figure(`mockups.${format}_full_both_cores_ratio`, both.full / both.composite);
    for (const k of ['composite', 'full', 'raster'] as Case[]) {
      const p50 = pct(times[k], 0.5);
      console.log(
        `| ${format} | ${k === 'full' ? 'mockup from the PDF' : k === 'raster' ? 'mockup from the raster' : 'sharp composite (baseline)'} | ${p50.toFixed(0)} | ${pct(times[k], 0.95).toFixed(0)} | ${(1000 / p50).toFixed(1)} | ${(base / p50).toFixed(2)} | ${both[k].toFixed(1)} | ${(both[k] / both.composite).toFixed(2)} |`,
      );
    }
  }
}

// the mockups are drawn under the V8 settings of the service's mockup processes: this
// process starts itself again with them (its children inherit them)
if (!IMAGE_V8_FLAGS.every((f) => process.execArgv.includes(f))) {
  const again = spawnSync(
    process.execPath,
    [
      ...process.execArgv,
      ...IMAGE_V8_FLAGS,
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  process.exit(again.status ?? 1);
} else if (process.argv[2] === 'child')
  await child(process.argv[3] as Case, process.argv[4] as 'jpeg' | 'png');
else await main();

/**
 * Variable data: how long the check of every row takes, and records a second and bytes
 * a record of a PDF/VT postcard (a shared photo, three text fields, a QR code), at
 * 10,000 and 100,000 records, against rendering the same card as separate items (one
 * PDF/X-4 file each) in the same run. Each size runs in a child process of its own, so
 * its peak RSS is its own.
 *
 *   npm run bench:vdp            (both sizes)
 *   npm run bench:vdp -- 10000   (one)
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { SealedDataset, SealedDatasetWriter } from '../src/datasets/sealed-file.ts';
import type { Design } from '../src/domain/project/design.ts';
import { parseDataUrl } from '../src/domain/project/design.ts';
import { renderPrintFile } from '../src/print/pdf.ts';
import { defaultOutputProfile } from '../src/print/profiles.ts';
import { checkRows } from '../src/print/vdp/check.ts';
import { renderVariable } from '../src/print/vdp/render.ts';
import { figure } from './lib/figures.ts';

async function card() {
  const photo = await sharp({
    create: {
      width: 1800,
      height: 1240,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 30 },
    },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
  const design = (fixed?: { first: string; last: string; url: string }): Design => ({
    areas: [
      {
        printArea: 'FRONT',
        layers: [
          {
            type: 'image',
            src: `data:image/jpeg;base64,${photo.toString('base64')}`,
            x: 0,
            y: 0,
            width: 148,
            height: 105,
            rotation: 0,
          },
          {
            type: 'text',
            text: fixed ? `Hello ${fixed.first}` : 'Hello {{firstName}}',
            x: 10,
            y: 10,
            fontSize: 24,
            color: '#1a2b3c',
            box: { width: 90, fit: 'shrink', minFontSize: 8 },
          },
          {
            type: 'text',
            text: fixed ? fixed.last : '{{lastName}}',
            x: 10,
            y: 24,
            fontSize: 14,
            color: '#000000',
          },
          {
            type: 'code',
            symbology: 'qrcode',
            data: fixed ? fixed.url : '{{url}}',
            x: 110,
            y: 65,
            width: 32,
            height: 32,
          },
        ],
      },
    ],
  });
  const item = (d: Design) => ({
    orderId: 'BENCH',
    orderItemId: '00000000-0000-4000-8000-00000000b001',
    sku: 'POSTCARD-A6',
    printMethod: 'digital',
    printColors: 4,
    printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 148, heightMm: 105 }],
    design: d,
    barcode: { format: 'code128' as const, value: 'BENCH-1' },
    createdAt: new Date('2026-11-27T00:00:00Z'),
    profile: defaultOutputProfile(),
    cropMarks: true,
  });
  return { design, item };
}

const row = (i: number) => ({
  first: `Zoë ${i}`,
  last: `Müller-Lüdenscheidt ${i}`,
  url: `https://example.com/r/${i}`,
});

/** One size in this process: prints a JSON line. */
async function measure(records: number) {
  const { design, item } = await card();
  const key = Buffer.alloc(32, 9);
  const parts: Buffer[] = [];
  const w = new SealedDatasetWriter(key, 'bench', (b) => parts.push(b));
  for (let i = 1; i <= records; i++) {
    const r = row(i);
    w.add([r.first, r.last, r.url]);
  }
  w.finish(['firstName', 'lastName', 'url']);
  const dataset = new SealedDataset(Buffer.concat(parts), key, 'bench');
  parts.length = 0;
  // the check before the sale: every row against the design, as POST /datasets/{id}/check does
  const c0 = performance.now();
  const check = checkRows(design(), dataset, new Set());
  const checkSeconds = (performance.now() - c0) / 1000;
  if (!check.ok)
    throw new Error(`the bench's rows failed their check: ${check.problems[0]?.detail}`);
  const source = {
    dataset,
    loadImage: async (s: string) => parseDataUrl(s),
    labelImage: async () => undefined,
  };
  const fd = openSync('/dev/null', 'w');
  const began = performance.now();
  const file = await renderVariable(item(design()), source, (b) => writeSync(fd, b));
  const seconds = (performance.now() - began) / 1000;
  closeSync(fd);
  // the shared part: the file of one record less that record's own bytes
  const one = await renderVariable(item(design()), source, () => {}, { records: [1] });
  const [from, to] = one.segments.get(1)!;
  const shared = one.bytes - (to - from);
  // the baseline: the same card as separate items, in the same run
  const baselineItems = 40;
  const b0 = performance.now();
  for (let i = 1; i <= baselineItems; i++)
    await renderPrintFile({ ...item(design(row(i))), inks: false });
  const baselinePerSecond = baselineItems / ((performance.now() - b0) / 1000);
  figure('vdp.records_per_s', records / seconds);
  figure('vdp.peak_rss_mib', process.resourceUsage().maxRSS / 1024);
  console.log(
    JSON.stringify({
      records,
      checkSeconds: Math.round(checkSeconds * 1000) / 1000,
      seconds: Math.round(seconds * 100) / 100,
      recordsPerSecond: Math.round(records / seconds),
      baselinePerSecond: Math.round(baselinePerSecond * 10) / 10,
      ratio: Math.round(records / seconds / baselinePerSecond),
      bytes: file.bytes,
      sharedBytes: shared,
      bytesPerRecord: Math.round((file.bytes - shared) / records),
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
}

const only = process.argv[2];
if (process.env.BENCH_VDP_CHILD) await measure(Number(process.env.BENCH_VDP_CHILD));
else
  for (const records of only ? [Number(only)] : [10_000, 100_000]) {
    const out = execFileSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url)],
      {
        env: { ...process.env, BENCH_VDP_CHILD: String(records) },
        maxBuffer: 1024 * 1024,
      },
    ).toString();
    process.stdout.write(out);
  }

// npm run bench:imposition
// Press runs end to end in one process (issue 24): 1,000 order items of mixed sizes
// (20-150 mm a side, seeded, 1-3 copies) rendered to their PDF/X-4 print files one after
// another (the baseline), then imposed as one batch on SRA3 step-and-repeat and on a
// 560 mm roll in gang mode: the sheets built as PDFs (items' pages embedded, slug, marks,
// CutContour). Then the layout alone at 1,000 and at 40,000 copies (one sticker, and the
// mixed sizes), time per copy against each other. Prints the sheet count against the area lower
// bound, utilisation per sheet, imposition time against the render time of the same items, and peak
// RSS.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { BatchItem, BatchSpec } from '../src/domain/batch/events.ts';
import { defaultOutputProfile } from '../src/print/profiles.ts';
import { renderJob } from '../src/print/render-job.ts';
import { impose } from '../src/production/impose.ts';
import { layOut, type Piece } from '../src/production/layout.ts';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 1000);
let seed = 20261124;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const mib = (b: number) => Math.round(b / 1024 / 1024);
/** every n-th item carries a photo (0: none): most personalised products do */
const PHOTO_EVERY = Number(process.env.BENCH_PHOTO_EVERY ?? 2);
const photo = `data:image/png;base64,${(
  await sharp({
    create: { width: 600, height: 400, channels: 3, background: { r: 40, g: 120, b: 200 } },
  })
    .composite([
      {
        input: Buffer.from(
          '<svg width="600" height="400"><circle cx="300" cy="200" r="150" fill="#e0a030"/><rect x="40" y="40" width="120" height="320" fill="#208040"/></svg>',
        ),
      },
    ])
    .png()
    .toBuffer()
).toString('base64')}`;

const files = new Map<string, Uint8Array>();
const items: BatchItem[] = [];
const renderBegan = performance.now();
for (let n = 0; n < ITEMS; n++) {
  const orderItemId = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const w = 20 + Math.round(random() * 130);
  const h = 20 + Math.round(random() * 130);
  const copies = 1 + Math.floor(random() * 3);
  const { file, preflight } = await renderJob({
    renderer: 2,
    item: {
      orderId: `bench-${n}`,
      orderItemId,
      sku: `ST-${w}x${h}`,
      printMethod: 'digital',
      printColors: 4,
      printAreas: [{ code: 'FRONT', name: 'Front', widthMm: w, heightMm: h }],
      design: {
        areas: [
          {
            printArea: 'FRONT',
            layers: [
              ...(PHOTO_EVERY && n % PHOTO_EVERY === 0
                ? [
                    {
                      type: 'image' as const,
                      src: photo,
                      x: 0,
                      y: 0,
                      width: w,
                      height: h,
                      rotation: 0,
                    },
                  ]
                : []),
              { type: 'text' as const, text: `#${n}`, x: 1, y: 1, fontSize: 8, color: '#c00000' },
            ],
          },
        ],
      },
      barcode: { format: 'code128', value: orderItemId },
      createdAt: '2026-11-24T10:00:00.000Z',
    },
    images:
      PHOTO_EVERY && n % PHOTO_EVERY === 0
        ? [[photo, { type: 'image/png', bytes: Buffer.from(photo.split(',')[1]!, 'base64') }]]
        : [],
    profile: undefined,
    inks: false,
    cropMarks: false,
    maxInkCoverage: 300,
  });
  const key = `bench/${n}.pdf`;
  files.set(key, file.bytes);
  items.push({
    orderItemId,
    stream: `Order-bench-${n}`,
    orderId: `bench-${n}`,
    itemId: `i${n}`,
    sku: `ST-${w}x${h}`,
    quantity: copies,
    copies,
    printMethod: 'digital',
    file: {
      storageKey: key,
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
      pages: file.pages,
    },
    barcode: { format: 'code128', value: orderItemId },
    preflight: {
      plates: preflight?.plates ?? [],
      maxInkCoverage: preflight?.maxInkCoverage ?? 0,
    },
  });
}
const renderSeconds = (performance.now() - renderBegan) / 1000;
const rssAfterRenders = process.memoryUsage().rss;
const peakAfterRenders = process.resourceUsage().maxRSS * 1024;
console.log(
  `${ITEMS} items (${PHOTO_EVERY ? `every ${PHOTO_EVERY}${PHOTO_EVERY === 2 ? 'nd' : 'th'} with a 600 x 400 photo, ` : ''}all with a line of text), ${items.reduce((a, i) => a + i.copies, 0)} copies; rendering them one after another: ${renderSeconds.toFixed(1)} s (${((renderSeconds / ITEMS) * 1000).toFixed(0)} ms an item)`,
);

const cases: { name: string; spec: BatchSpec }[] = [
  {
    name: 'SRA3, step-repeat, gutter 0',
    spec: {
      mode: 'step-repeat',
      media: { kind: 'sheet', preset: 'SRA3', widthMm: 320, heightMm: 450 },
      gutterMm: 0,
      marginMm: 5,
      allowRotation: true,
      copies: 'quantity',
    },
  },
  {
    name: '560 mm roll (1 m pieces), gang, gutter 0',
    spec: {
      mode: 'gang',
      media: { kind: 'roll', widthMm: 560, heightMm: 1000 },
      gutterMm: 0,
      marginMm: 5,
      allowRotation: true,
      copies: 'quantity',
    },
  },
  {
    name: '560 mm roll (1 m pieces), gang, gutter 3 mm',
    spec: {
      mode: 'gang',
      media: { kind: 'roll', widthMm: 560, heightMm: 1000 },
      gutterMm: 3,
      marginMm: 5,
      allowRotation: true,
      copies: 'quantity',
    },
  },
];
console.log(
  '| batch | sheets | lower bound | ratio | utilisation first / median / last | overall | imposition | imposition / render | sheet PDFs |',
);
console.log('|---|---:|---:|---:|---|---:|---:|---:|---:|');
const only = process.env.BENCH_CASE;
for (const c of cases.filter((x) => !only || x.name.startsWith(only))) {
  const began = performance.now();
  const r = await impose({
    batchId: '3f1c2b9e-8d4a-4f7e-9b1a-2c3d4e5f6a7b',
    spec: c.spec,
    createdAt: new Date('2026-11-24T10:00:00Z'),
    items,
    files,
    profile: defaultOutputProfile(),
  });
  const seconds = (performance.now() - began) / 1000;
  const u = r.sheets.map((s) => s.utilisation);
  const median = [...u].sort((a, b) => a - b)[Math.floor(u.length / 2)] ?? 0;
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  console.log(
    `| ${c.name} | ${r.sheets.length} | ${r.lowerBound} | ${(r.sheets.length / r.lowerBound).toFixed(3)} | ${pct(u[0]!)} / ${pct(median)} / ${pct(u.at(-1)!)} | ${pct(r.utilisation)} | ${seconds.toFixed(1)} s | ${((seconds / renderSeconds) * 100).toFixed(1)}% | ${mib(r.sheets.reduce((a, s) => a + s.bytes, 0))} MiB |`,
  );
  if (process.env.BENCH_SHEETS === 'all')
    console.log(`  per sheet: ${u.map((x) => pct(x)).join(' ')}`);
}
console.log(
  `RSS after the renders ${mib(rssAfterRenders)} MiB (peak ${mib(peakAfterRenders)} MiB); peak RSS at the end ${mib(process.resourceUsage().maxRSS * 1024)} MiB`,
);

// The layout's cost per copy at 40,000 copies against 1,000 (issue 41: it grew with the
// square of the copies, 40,000 took 30 s): one sticker, and mixed sizes, same run
const layoutOptions = {
  media: { widthMm: 320, heightMm: 450 - 10 },
  gutterMm: 2,
  marginMm: 5,
  allowRotation: true,
};
const mixed = (copies: number): Piece[] => {
  const pieces: Piece[] = [];
  for (let n = 0, left = copies; left > 0; n++) {
    const c = Math.min(left, 1 + (n % 4));
    pieces.push({
      id: `m${n}`,
      widthMm: 20 + ((n * 37) % 110),
      heightMm: 20 + ((n * 53) % 110),
      copies: c,
    });
    left -= c;
  }
  return pieces;
};
const perCopy = (pieces: Piece[]) => {
  const copies = pieces.reduce((a, p) => a + p.copies, 0);
  // the best of three (one for the slow mixed case at 40,000): a run of a few ms is noise
  let ms = Number.POSITIVE_INFINITY;
  let l: ReturnType<typeof layOut> | undefined;
  for (let run = 0; run < (copies > 10_000 && pieces.length > 1 ? 1 : 3); run++) {
    const began = performance.now();
    l = layOut(pieces, layoutOptions);
    ms = Math.min(ms, performance.now() - began);
  }
  if (!l) throw new Error('no layout');
  return {
    copies,
    ms,
    sheets: l.sheets.length,
    lowerBound: l.lowerBound,
    usPerCopy: (ms * 1000) / copies,
  };
};
console.log('\n| layout | copies | sheets | lower bound | time | per copy | per copy / at 1,000 |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [name, make] of [
  [
    'one sticker 56 x 36 mm',
    (n: number) => [{ id: 'sticker', widthMm: 56, heightMm: 36, copies: n }],
  ],
  ['mixed sizes, 1-4 copies each', mixed],
] as const) {
  perCopy(make(200)); // warm the code up
  const small = perCopy(make(1000));
  const large = perCopy(make(40_000));
  for (const r of [small, large])
    console.log(
      `| ${name} | ${r.copies} | ${r.sheets} | ${r.lowerBound} | ${r.ms.toFixed(0)} ms | ${r.usPerCopy.toFixed(1)} µs | ${(r.usPerCopy / small.usPerCopy).toFixed(2)} |`,
    );
}

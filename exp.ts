import { readFileSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { renderPrintFile } from './src/print/pdf.ts';
import { defaultOutputProfile } from './src/print/profiles.ts';

const photo = await sharp({
  create: { width: 2400, height: 1600, channels: 3, background: '#3366aa' },
})
  .composite([
    {
      input: Buffer.from(
        '<svg width="2400" height="1600"><circle cx="1200" cy="800" r="600" fill="#f2c14e"/></svg>',
      ),
    },
  ])
  .jpeg()
  .toBuffer();
const logo = await sharp(
  Buffer.from(
    '<svg width="400" height="200"><rect width="400" height="200" fill="none"/><circle cx="100" cy="100" r="80" fill="#c8102e"/><rect x="220" y="40" width="150" height="120" fill="#1a2b3c"/></svg>',
  ),
)
  .png()
  .toBuffer();
const cmyk = readFileSync('/tmp/cmyk-k100.jpg');
const base = {
  orderId: 'O1',
  orderItemId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  sku: 'MUG',
  printColors: 4,
  printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 105, heightMm: 148 }],
  barcode: { format: 'code128' as const, value: '0f8fad5b-d9cb-469f-a165-70867728950e' },
  createdAt: new Date(0),
  profile: defaultOutputProfile(),
  cropMarks: false,
};
const d = (layers: unknown[], inks?: unknown) => ({
  ...(inks ? { inks } : {}),
  areas: [{ printArea: 'FRONT', layers }],
});
const t0 = performance.now();
const a = await renderPrintFile({
  ...base,
  printMethod: 'digital',
  inks: false,
  design: d([
    {
      type: 'image',
      src: `data:image/jpeg;base64,${photo.toString('base64')}`,
      x: 0,
      y: 0,
      width: 105,
      height: 70,
      rotation: 0,
    },
    {
      type: 'image',
      src: `data:image/jpeg;base64,${cmyk.toString('base64')}`,
      x: 10,
      y: 80,
      width: 30,
      height: 20,
      rotation: 0,
    },
    {
      type: 'image',
      src: `data:image/png;base64,${logo.toString('base64')}`,
      x: 50,
      y: 80,
      width: 40,
      height: 20,
      rotation: 15,
    },
    { type: 'text', text: 'Black text', x: 5, y: 110, fontSize: 14, color: '#000000' },
    { type: 'text', text: 'Blue text', x: 5, y: 125, fontSize: 14, color: '#1f5fbf' },
  ]),
} as never);
console.log('process', (performance.now() - t0).toFixed(0), 'ms', a.bytes.length, a.facts);
writeFileSync('/tmp/a.pdf', a.bytes);
const b = await renderPrintFile({
  ...base,
  printMethod: 'screen',
  printColors: 2,
  inks: true,
  cropMarks: true,
  design: d(
    [
      {
        type: 'image',
        src: `data:image/png;base64,${logo.toString('base64')}`,
        x: 10,
        y: 10,
        width: 80,
        height: 40,
        rotation: 0,
      },
      { type: 'text', text: 'Red words', x: 5, y: 80, fontSize: 20, color: '#c8102e' },
    ],
    [{ color: '#c8102e', name: 'PANTONE 186 C' }],
  ),
} as never);
console.log('inks', b.bytes.length, b.facts);
writeFileSync('/tmp/b.pdf', b.bytes);

import { preflight } from './src/print/preflight.ts';

const ra = await preflight(a.bytes, a.facts, { maxInkCoverage: 300, inks: undefined });
const rb = await preflight(b.bytes, b.facts, { maxInkCoverage: 300, inks: b.facts.inks });
const t = performance.now();
await preflight(a.bytes, a.facts, { maxInkCoverage: 300, inks: undefined });
console.log('preflight ms', (performance.now() - t).toFixed(0));
console.log(JSON.stringify(ra, null, 1));
console.log(
  JSON.stringify(
    rb.rules.filter(
      (r) => r.result !== 'pass' || r.rule === 'plates' || r.rule === 'colour_spaces',
    ),
  ),
);

// npm run bench:proofs
// Proofs (issue 43): a two-page item's print file rendered (the baseline), then its proof
// drawn from that file (a PNG per page with the trim, bleed and safe lines, the PROOF mark
// and the caption), each RUNS times in one process, one after another. Prints the p50
// and p95 of each and their ratio; the goal is a proof under 1 s (p50) for a 2-page item.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { renderProof } from '../src/print/proof.ts';
import { renderJob } from '../src/print/render-job.ts';
import { figure } from './lib/figures.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const photo = await sharp({
  create: { width: 2400, height: 1600, channels: 3, background: { r: 40, g: 120, b: 200 } },
})
  .composite([
    {
      input: Buffer.from(
        '<svg width="2400" height="1600"><circle cx="1200" cy="800" r="600" fill="#e0a030"/></svg>',
      ),
    },
  ])
  .jpeg({ quality: 85 })
  .toBuffer();
const src = `data:image/jpeg;base64,${photo.toString('base64')}`;
const job = {
  renderer: 2 as const,
  item: {
    orderId: 'BENCH-PROOF',
    orderItemId: '00000000-0000-4000-8000-000000000042',
    sku: 'CARD-2',
    printMethod: 'digital',
    printColors: 4,
    printAreas: [
      { code: 'FRONT', name: 'Front', widthMm: 148, heightMm: 105 },
      { code: 'BACK', name: 'Back', widthMm: 148, heightMm: 105 },
    ],
    design: {
      areas: [
        {
          printArea: 'FRONT',
          layers: [
            { type: 'image' as const, src, x: 0, y: 0, width: 148, height: 105, rotation: 0 },
            {
              type: 'text' as const,
              text: 'Greetings',
              x: 8,
              y: 8,
              fontSize: 18,
              color: '#ffffff',
            },
          ],
        },
        {
          printArea: 'BACK',
          layers: [
            {
              type: 'text' as const,
              text: 'Ada Lovelace, 10 Downing Lane',
              x: 8,
              y: 8,
              fontSize: 10,
              color: '#1a1a1a',
            },
          ],
        },
      ],
    },
    barcode: { format: 'code128' as const, value: '00000000-0000-4000-8000-000000000042' },
    createdAt: '2026-11-26T10:00:00.000Z',
  },
  images: [[src, { type: 'image/jpeg', bytes: photo }]] as [
    string,
    { type: string; bytes: Buffer },
  ][],
  profile: undefined,
  inks: false,
  cropMarks: false,
  maxInkCoverage: 300,
};

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const renders: number[] = [];
const proofs: number[] = [];
let pdf: Uint8Array | undefined;
// warm both up once (modules, fonts), then alternate so both see the same machine
await renderProof({
  pdf: (await renderJob(job)).file.bytes,
  printFileSha256: '0'.repeat(64),
  version: 1,
});
const shas = new Set<string>();
for (let i = 0; i < RUNS; i++) {
  let began = performance.now();
  pdf = (await renderJob(job)).file.bytes;
  renders.push(performance.now() - began);
  const sha = createHash('sha256').update(pdf).digest('hex');
  began = performance.now();
  const pages = await renderProof({ pdf, printFileSha256: sha, version: 1 });
  proofs.push(performance.now() - began);
  shas.add(pages.map((p) => createHash('sha256').update(p.png).digest('hex')).join());
}
console.log(
  `a 2-page item (A6 front with a 2400 x 1600 photo, back with text), ${RUNS} runs each, alternating\n`,
);
console.log('| step | p50 ms | p95 ms |');
console.log('|---|---:|---:|');
console.log(
  `| print file render | ${pct(renders, 50).toFixed(0)} | ${pct(renders, 95).toFixed(0)} |`,
);
console.log(
  `| proof from it (2 PNG pages) | ${pct(proofs, 50).toFixed(0)} | ${pct(proofs, 95).toFixed(0)} |`,
);
figure('proofs.p50_ms', pct(proofs, 50));
figure('proofs.kinds_of_bytes', shas.size);
console.log(
  `\nproof / render (p50): ${(pct(proofs, 50) / pct(renders, 50)).toFixed(2)}; goal: proof p50 < 1000 ms: ${pct(proofs, 50) < 1000 ? 'met' : 'NOT met'}; proofs of the same file alike: ${shas.size === 1 ? 'yes, byte for byte' : `NO (${shas.size} kinds)`}`,
);

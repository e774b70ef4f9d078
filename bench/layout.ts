// npm run bench:layout
// The imposition layout alone (issue 24, the packing part): 1,000 mixed items (random
// sizes 20-150 mm, seeded, 1-3 copies) laid out on SRA3 sheets, a 560 mm roll cut at 1 m
// and a 22 in DTF roll cut at 18 in, with and without rotation. Prints the sheet count
// against the area lower bound ceil(placed area / usable area of one sheet), the
// utilisation of every sheet (first, median, last) and the time taken.
import { layOut, type Piece } from '../src/production/layout.ts';

const GUTTER = Number(process.env.BENCH_GUTTER_MM ?? 3);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 1000);
let seed = 20261124;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pieces: Piece[] = Array.from({ length: ITEMS }, (_, i) => ({
  id: `item-${i}`,
  widthMm: 20 + Math.round(random() * 130),
  heightMm: 20 + Math.round(random() * 130),
  copies: 1 + Math.floor(random() * 3),
}));
const media = [
  { name: 'SRA3', widthMm: 320, heightMm: 450 },
  { name: '560 mm roll, 1 m', widthMm: 560, heightMm: 1000 },
  { name: '22 in DTF roll, 18 in', widthMm: 558.8, heightMm: 457.2 },
];
const rows: string[] = [];
for (const m of media)
  for (const allowRotation of [true, false]) {
    const began = performance.now();
    const l = layOut(pieces, { media: m, marginMm: 10, gutterMm: GUTTER, allowRotation });
    const ms = performance.now() - began;
    const u = l.sheets.map((s) => s.utilisation);
    const median = [...u].sort((a, b) => a - b)[Math.floor(u.length / 2)] ?? 0;
    rows.push(
      `| ${m.name} | ${allowRotation ? 'yes' : 'no'} | ${l.sheets.length} | ${l.lowerBound} | ${(l.sheets.length / l.lowerBound).toFixed(3)} | ${(u[0]! * 100).toFixed(1)}% / ${(median * 100).toFixed(1)}% / ${(u.at(-1)! * 100).toFixed(1)}% | ${(l.utilisation * 100).toFixed(1)}% | ${l.heuristic} | ${(ms / 1000).toFixed(1)} s |`,
    );
  }
console.log(
  `${ITEMS} items, ${pieces.reduce((n, p) => n + p.copies, 0)} copies, margin 10 mm, gutter ${GUTTER} mm`,
);
console.log(
  '| media | rotation | sheets | lower bound | ratio | utilisation first / median / last | overall | best heuristic | time |',
);
console.log('|---|---|---:|---:|---:|---|---:|---|---:|');
for (const r of rows) console.log(r);

// The pipeline bench's raw baseline, in a process of its own started under the render
// processes' V8 flags: the render function in a loop, two at a time, making the same
// PDF/X-4 file in CMYK with the default output profile (no preflight, no storage), and
// SINGLES renders one after another. Prints its figures as one JSON line.
// Arguments: the design's JSON file, the number of items, the number of single renders.
import { readFileSync } from 'node:fs';
import { renderPrintFile } from '../../src/print/pdf.ts';
import { cardItem } from './card.ts';
import { threadSnapshot, threadsSpent } from './cpu.ts';

const PARALLEL = 2; // the machine's cores: raw renders run two at a time, like the worker's items
const [designFile, items, singles] = process.argv.slice(2);
const design = JSON.parse(readFileSync(designFile!, 'utf8'));
const ORDERS = Number(items);
const rawItem = (n: number) => cardItem(design, `RAW-${n}`);

await renderPrintFile(rawItem(0)); // warm up
const single: number[] = [];
for (let i = 0; i < Number(singles); i++) {
  const t0 = performance.now();
  await renderPrintFile(rawItem(i));
  single.push(performance.now() - t0);
}
let next = 0;
const cpu = process.cpuUsage();
const threads = threadSnapshot(process.pid);
const began = performance.now();
await Promise.all(
  Array.from({ length: PARALLEL }, async () => {
    while (next < ORDERS) await renderPrintFile(rawItem(next++));
  }),
);
const rate = ORDERS / ((performance.now() - began) / 1000);
const { user, system } = process.cpuUsage(cpu);
console.log(
  JSON.stringify({
    single,
    rate,
    cpuSeconds: (user + system) / 1e6,
    threads: threadsSpent(threads, threadSnapshot(process.pid)),
  }),
);

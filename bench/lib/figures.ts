import { appendFileSync } from 'node:fs';

/**
 * A bench's headline figure, for `npm run bench:budget`: written as one JSON line to the
 * file BENCH_FIGURES names (the budget sets it; a bench run alone only prints).
 */
export function figure(id: string, value: number): void {
  const file = process.env.BENCH_FIGURES;
  if (file && Number.isFinite(value)) appendFileSync(file, `${JSON.stringify({ id, value })}\n`);
}

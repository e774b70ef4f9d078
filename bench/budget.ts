// npm run bench:budget [-- --only pipeline,webhooks] [--record]
// The headline benches in short form, one after another, and one table: each figure, its
// goal (bench/budget-goals.ts), the figure recorded in docs/benchmarks.md's budget table,
// and a mark where the goal is missed. Each bench's whole output is kept in
// test-results/budget/<name>.log. --record writes the table, with the commit it ran on,
// at the top of docs/benchmarks.md. Ends with 1 when a goal is missed or a bench failed.
// Run it on an idle machine: its figures are ratios to baselines of the same run, but
// the budget's memory and latency figures are not.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUDGET_BENCHES, type BudgetBench, GOALS, type Goal } from './budget-goals.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const docs = path.join(root, 'docs/benchmarks.md');
const logs = path.join(root, 'test-results/budget');
const BEGIN = '<!-- budget:begin -->';
const END = '<!-- budget:end -->';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1]?.split(',') : undefined;
const record = args.includes('--record');

/** Runs one bench to its end; its figures as it wrote them to its figures file. */
async function run(
  bench: BudgetBench,
): Promise<{ figures: Map<string, number>; ok: boolean; seconds: number }> {
  const slug = bench.name.replace(/\W+/g, '-');
  const figuresFile = path.join(logs, `${slug}.figures`);
  rmSync(figuresFile, { force: true });
  const [script, ...scriptArgs] = bench.script.split(' ');
  const out = createWriteStream(path.join(logs, `${slug}.log`));
  const began = performance.now();
  const child = spawn(
    path.join(root, 'node_modules/.bin/tsx'),
    [path.join(root, 'bench', script!), ...scriptArgs],
    {
      cwd: root,
      env: { ...process.env, ...bench.env, BENCH_FIGURES: figuresFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  const code = await new Promise<number | null>((r) => child.once('close', r));
  out.end();
  const figures = new Map<string, number>();
  try {
    for (const line of readFileSync(figuresFile, 'utf8').split('\n').filter(Boolean)) {
      const f = JSON.parse(line) as { id: string; value: number };
      // a figure reported twice (one per size or format) keeps its last
      figures.set(f.id, f.value);
    }
  } catch {
    // no figures: the bench failed before its first
  }
  return { figures, ok: code === 0, seconds: (performance.now() - began) / 1000 };
}

const goalText = (g: Goal) =>
  g.atLeast !== undefined ? `>= ${g.atLeast}` : g.atMost !== undefined ? `<= ${g.atMost}` : '';
const meets = (g: Goal, v: number) =>
  (g.atLeast === undefined || v >= g.atLeast) && (g.atMost === undefined || v <= g.atMost);
const shown = (v: number | undefined) =>
  v === undefined
    ? '-'
    : Number.isInteger(v) || Math.abs(v) >= 100
      ? v.toFixed(0)
      : Math.abs(v) >= 10
        ? v.toFixed(1)
        : v.toFixed(3);

/** docs/benchmarks.md and where its budget table lies (between BEGIN and END). */
function budgetSection(): { text: string; from: number; to: number } | undefined {
  const text = readFileSync(docs, 'utf8');
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  return from < 0 || to < 0 ? undefined : { text, from: from + BEGIN.length, to };
}

/** The figures of the budget table docs/benchmarks.md holds now, by id. */
function recorded(): Map<string, string> {
  const out = new Map<string, string>();
  const section = budgetSection();
  if (!section) return out;
  for (const line of section.text.slice(section.from, section.to).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | id | what | goal | figure | recorded | mark |
    const id = /^`(.+)`$/.exec(cells[1] ?? '')?.[1];
    if (id && cells[4]) out.set(id, cells[4]);
  }
  return out;
}

async function main() {
  mkdirSync(logs, { recursive: true });
  const benches = BUDGET_BENCHES.filter((b) => !only || only.includes(b.name));
  const figures = new Map<string, number>();
  const failed: string[] = [];
  for (const bench of benches) {
    process.stdout.write(`${bench.name} ... `);
    const r = await run(bench);
    for (const [id, v] of r.figures) figures.set(id, v);
    if (!r.ok) failed.push(bench.name);
    console.log(`${r.ok ? 'done' : 'FAILED'} in ${r.seconds.toFixed(0)} s`);
  }
  const before = recorded();
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
  const ran = new Set(benches.map((b) => b.name));
  // a goal's id starts with the name of the bench that reports it
  const rows = GOALS.filter((g) => ran.has(g.id.split('.')[0]!));
  const missed = rows.filter((g) => {
    const v = figures.get(g.id);
    return v === undefined || !meets(g, v);
  });
  const table = [
    `Main \`${commit}\`, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, \`npm run bench:budget\`${only ? ` -- --only ${only.join(',')}` : ''}:`,
    '',
    '| figure | what | goal | now | recorded before | |',
    '|---|---|---:|---:|---:|---|',
    ...rows.map((g) => {
      const v = figures.get(g.id);
      const mark = v === undefined ? 'NOT MEASURED' : meets(g, v) ? '' : 'MISSED';
      return `| \`${g.id}\` | ${g.what} | ${goalText(g)} | ${shown(v)} | ${before.get(g.id) ?? '-'} | ${mark} |`;
    }),
  ].join('\n');
  console.log(`\n${table}\n`);
  if (failed.length > 0) console.log(`benches that failed (see ${logs}): ${failed.join(', ')}`);
  console.log(`${rows.length - missed.length} of ${rows.length} goals met`);
  if (record) {
    const section = budgetSection();
    if (!section) throw new Error(`docs/benchmarks.md has no ${BEGIN} ... ${END}`);
    const { text, from, to } = section;
    writeFileSync(docs, `${text.slice(0, from)}\n${table}\n${text.slice(to)}`);
    console.log('recorded in docs/benchmarks.md');
  }
  process.exitCode = missed.length > 0 || failed.length > 0 ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

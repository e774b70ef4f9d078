#!/usr/bin/env node
// `npm run test:repeat -- <files or folders> [--times N] [--busy]`: the flake hunt. Runs
// the named test files N times (default 5), each time a whole vitest run of its own (its
// own PostgreSQL cluster and Temporal dev server, as `npm test` makes them), and prints
// each test that failed at least once with its failures out of N, then one line per file.
// --busy keeps one core busy with another process for the whole hunt (a spinning Node),
// as a loaded CI machine would. Files named *.alone.test.ts run after the rest, one at a
// time, as in `npm test`. The reports stay in test-results/repeat/ for reading.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt, ensureDependencies, ensureTestTools, root } from './lib/prepare.mjs';
import { ensureSystemPackages } from './lib/system-packages.mjs';

const args = process.argv.slice(2);
let times = 5;
let busy = false;
const targets = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--times') times = Number(args[++i]);
  else if (args[i] === '--busy') busy = true;
  else targets.push(args[i]);
}
if (!Number.isInteger(times) || times < 1 || targets.length === 0) {
  console.error('usage: npm run test:repeat -- <files or folders> [--times N] [--busy]');
  process.exit(2);
}

const packages = ensureSystemPackages();
const tools = ensureTestTools(packages);
ensureDependencies();
await packages;
await tools;
// as npm test does: the files that run `npm start` find dist/ compiled, not compiled in their wait
ensureBuilt();

const spinner = busy
  ? // it spins, and every few million turns ends itself once this process is gone (a
    // hunt killed with -9 leaves no core spinning behind it)
    spawn(
      process.execPath,
      [
        '-e',
        `for (let i = 1; ; i++) if (i % 5e7 === 0 && process.ppid !== ${process.pid}) process.exit(0);`,
      ],
      { stdio: 'ignore' },
    )
  : undefined;
const stopSpinner = () => spinner?.kill('SIGKILL');
process.on('exit', stopSpinner);
/** the vitest run under way: a process group of its own, ended with the hunt */
let running;
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopSpinner();
    if (!running) process.exit(130);
    // vitest's teardown stops its clusters and servers; past 20 s the group is killed
    const group = -running.pid;
    const kill = (s) => {
      try {
        process.kill(group, s);
      } catch {}
    };
    kill('SIGTERM');
    setTimeout(() => kill('SIGKILL'), 20_000).unref();
    running.once('exit', () => process.exit(130));
  });

const dir = path.join(root, 'test-results/repeat');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
/** `file > test` -> its failures, and the first message of each */
const results = new Map();
const files = new Map();
const began = Date.now();
// as `npm test` does: the files that load the whole machine (*.alone.test.ts) run after
// the rest, one at a time, so they neither slow the others nor are slowed by them
const isAlone = (f) => f.endsWith('.alone.test.ts');
const alone = targets.flatMap((t) => {
  const full = path.resolve(root, t);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return isAlone(full) ? [path.relative(root, full)] : [];
  return readdirSync(full, { recursive: true })
    .map(String)
    .filter(isAlone)
    .map((f) => path.relative(root, path.join(full, f)));
});
const phases = [
  [...targets, '--exclude', 'test/**/*.alone.test.ts', '--passWithNoTests'],
  ...(alone.length > 0 ? [['--maxWorkers=1', ...alone]] : []),
];

/**
 * One vitest run of `args`, its JSON report (undefined when vitest wrote none). Not
 * spawnSync: a process blocked in it takes no signal, and a hunt told to stop went on.
 */
async function vitest(args, report) {
  running = spawn(
    process.execPath,
    [
      path.join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--reporter=dot',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...args,
    ],
    { cwd: root, stdio: 'inherit', detached: true },
  );
  await new Promise((resolve) => running.once('exit', resolve));
  running = undefined;
  return existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined;
}

for (let n = 1; n <= times; n++) {
  const runBegan = Date.now();
  const reports = [];
  for (const [k, args] of phases.entries())
    reports.push(await vitest(args, path.join(dir, `run-${n}-${k}.json`)));
  if (reports.some((r) => r === undefined)) {
    console.error(`run ${n}: vitest wrote no report`);
    continue;
  }
  const json = {
    testResults: reports.flatMap((r) => r.testResults),
    numPassedTests: reports.reduce((s, r) => s + r.numPassedTests, 0),
    numFailedTests: reports.reduce((s, r) => s + r.numFailedTests, 0),
  };
  for (const file of json.testResults) {
    const name = path.relative(root, file.name);
    const f = files.get(name) ?? { runs: 0, failedRuns: 0 };
    f.runs += 1;
    if (file.status === 'failed') f.failedRuns += 1;
    files.set(name, f);
    // a file that failed to load ran no test: counted as one failure of the file itself
    const tests =
      file.assertionResults.length > 0
        ? file.assertionResults
        : [{ fullName: '(the file itself)', status: file.status, failureMessages: [file.message] }];
    for (const t of tests) {
      const key = `${name} > ${t.fullName}`;
      const r = results.get(key) ?? { runs: 0, failures: 0, messages: [] };
      r.runs += 1;
      if (t.status === 'failed') {
        r.failures += 1;
        r.messages.push(
          `run ${n}: ${String(t.failureMessages?.[0] ?? '')
            .split('\n')[0]
            .slice(0, 300)}`,
        );
      }
      results.set(key, r);
    }
  }
  console.log(
    `\n== run ${n} of ${times}: ${json.numPassedTests} passed, ${json.numFailedTests} failed (${Math.round((Date.now() - runBegan) / 1000)} s)\n`,
  );
}
stopSpinner();

const flaky = [...results].filter(([, r]) => r.failures > 0);
console.log(
  `\n== ${times} runs of ${targets.join(' ')}${busy ? ', one core kept busy' : ''}, ${Math.round((Date.now() - began) / 60_000)} min`,
);
for (const [key, r] of flaky) {
  console.log(`FAILED ${r.failures}/${r.runs}  ${key}`);
  for (const m of r.messages) console.log(`    ${m}`);
}
console.log('\nfailed runs / runs, per file:');
for (const [name, f] of [...files].sort(([a], [b]) => a.localeCompare(b)))
  console.log(`  ${f.failedRuns}/${f.runs}  ${name}`);
const tests = [...results.values()];
console.log(
  `\n${tests.length} tests, ${tests.reduce((s, r) => s + r.runs, 0)} runs of a test, ${tests.reduce((s, r) => s + r.failures, 0)} failures, ${flaky.length} tests failed at least once`,
);
process.exit(flaky.length > 0 ? 1 : 0);

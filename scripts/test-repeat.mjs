#!/usr/bin/env node
// `npm run test:repeat -- <files or folders> [--times N] [--busy]`: the flake hunt. Runs
// the named test files N times (default 5), each time a whole vitest run of its own (its
// own PostgreSQL cluster and Temporal dev server, as `npm test` makes them), and prints
// each test that failed at least once with its failures out of N, then one line per file.
// --busy keeps one core busy with another process for the whole hunt (a spinning Node),
// as a loaded CI machine would. The reports stay in test-results/repeat/ for reading.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
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
ensureDependencies();
await packages;
await ensureTestTools();
// as npm test does: the files that run `npm start` find dist/ compiled, not compiled in their wait
ensureBuilt();

const spinner = busy
  ? spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
  : undefined;
const stopSpinner = () => spinner?.kill('SIGKILL');
process.on('exit', stopSpinner);
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopSpinner();
    process.exit(130);
  });

const dir = path.join(root, 'test-results/repeat');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
/** `file > test` -> its failures, and the first message of each */
const results = new Map();
const files = new Map();
const began = Date.now();
for (let n = 1; n <= times; n++) {
  const report = path.join(dir, `run-${n}.json`);
  const runBegan = Date.now();
  spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--reporter=dot',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...targets,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (!existsSync(report)) {
    console.error(`run ${n}: vitest wrote no report`);
    continue;
  }
  const json = JSON.parse(readFileSync(report, 'utf8'));
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

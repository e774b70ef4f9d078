#!/usr/bin/env node
// `npm test`: every suite (unit, contract, integration, e2e) against a throwaway
// PostgreSQL cluster and a Temporal dev server, then the counts from vitest's JSON
// report as the last line: "N passed, M failed".
// TEST_NODES (comma-separated node binaries) runs the whole suite once on each, e.g. on
// Node 24 and on the machine's Node 20, and sums the counts; default: this Node.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureBuilt, ensureDependencies, ensureTestTools, root } from './lib/prepare.mjs';
import { ensureSystemPackages } from './lib/system-packages.mjs';

// a bare machine is set up first (as root), or told what it lacks before anything runs;
// Debian's packages, npm ci and the Go builds of the tools run at once (the first two
// mostly wait on the network; the XJDF schema's fetch waits for Debian's Maven)
const packages = ensureSystemPackages();
const tools = ensureTestTools(packages);
ensureDependencies();
await packages;
await tools;
// the e2e tests run `npm start`, which compiles dist/ when it is missing: compiled once
// here, a test's wait for the service to be ready is not a compile on a loaded machine
// (the first such test on a fresh clone ran past its 300 s)
ensureBuilt();
// `.ci/run` prepares first, then runs its own checks, then the tests
if (process.argv[2] === '--prepare-only') process.exit(0);

const nodes = (process.env.TEST_NODES ?? process.execPath).split(',').filter(Boolean);
let passed = 0;
let failed = 0;
let skipped = 0;
let code = 0;
// the failures, named again just above the counts: the end of the output is what a CI
// log keeps when it is cut
const failures = [];
// Tests named *.alone.test.ts load the machine so much (100,000 events) that the timing
// of the others running beside them suffers: they run after the rest, one at a time.
const ALONE = 'test/**/*.alone.test.ts';
// With several Nodes (CI: Node 24, then the machine's Node 20), unit, contract and
// integration tests run on each: they load every module of the service in-process, so
// they are where a Node version shows. Each end-to-end file runs once: what it adds is
// the whole service driven from outside, which a second Node does not change. Those that
// run the embedded default as `npm start` runs it here (restarts, stops, kill -9,
// outages) run on the machine's Node, which is the one that runs `npm start`, with the
// two browser files to even the halves; the rest, the tests run alone among them, on the
// first Node.
const ON_MACHINE_NODE = [
  'test/e2e/stop.test.ts',
  'test/e2e/embedded-restart.test.ts',
  'test/e2e/faults.test.ts',
  'test/e2e/outages.test.ts',
  'test/e2e/two-hosts.test.ts',
  'test/e2e/orders.test.ts',
  'test/e2e/audit-daily-head.test.ts',
  'test/e2e/ops-page.test.ts',
  'test/e2e/approvals.test.ts',
];
const args = process.argv.slice(2);
const alonePhase = ['--maxWorkers=1', '--passWithNoTests', '.alone.test.ts'];
/** what Node `i` of `n` runs: vitest's arguments per phase */
function phasesOf(i, n) {
  // arguments given (a file, a filter) are one run as vitest would do it
  if (args.length > 0) return [args];
  // a filter, not a glob: vitest matches it against the file names
  if (n === 1) return [['--exclude', ALONE], alonePhase];
  if (i === 0)
    return [['--exclude', ALONE, ...ON_MACHINE_NODE.flatMap((f) => ['--exclude', f])], alonePhase];
  return [
    ['test/unit', 'test/contract', 'test/integration', ...ON_MACHINE_NODE, '--exclude', ALONE],
  ];
}
for (const [i, node] of nodes.entries()) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`\n== tests on Node ${version} (${node})`);
  let p = 0;
  let f = 0;
  let s = 0;
  for (const [k, phase] of phasesOf(i, nodes.length).entries()) {
    const report = path.join(root, `test-results/vitest-${i}-${k}.json`);
    mkdirSync(path.dirname(report), { recursive: true });
    rmSync(report, { force: true });
    const r = spawnSync(
      node,
      [
        path.join(root, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=${report}`,
        ...phase,
      ],
      {
        cwd: root,
        stdio: 'inherit',
        // child processes of the tests (the service, npm start) run on the same Node
        env: { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}` },
      },
    );
    if (existsSync(report)) {
      const json = JSON.parse(readFileSync(report, 'utf8'));
      p += json.numPassedTests;
      const failedHere =
        json.numFailedTests +
        // a suite that failed to load counts as a failure even though it ran no test
        json.testResults.filter((t) => t.status === 'failed' && t.assertionResults.length === 0)
          .length;
      f += failedHere;
      for (const file of json.testResults) {
        const name = path.relative(root, file.name);
        if (file.status === 'failed' && file.assertionResults.length === 0)
          failures.push(`Node ${version} ${name}: ${(file.message ?? '').split('\n')[0]}`);
        for (const t of file.assertionResults)
          if (t.status === 'failed')
            failures.push(
              `Node ${version} ${name} > ${t.fullName}: ${(t.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300)}`,
            );
      }
      s += json.numPendingTests + json.numTodoTests;
      if (r.status !== 0 || failedHere > 0) code = r.status || 1;
    } else {
      f += 1;
      code = r.status || 1;
    }
  }
  console.log(`Node ${version}: ${p} passed, ${f} failed, ${s} skipped`);
  passed += p;
  failed += f;
  skipped += s;
}
for (const failure of failures) console.log(`FAILED ${failure}`);
if (skipped > 0) console.log(`${skipped} skipped`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(code);

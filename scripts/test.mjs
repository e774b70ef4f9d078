#!/usr/bin/env node
// `npm test`: every suite (unit, contract, integration, e2e) against a throwaway
// PostgreSQL cluster and a Temporal dev server, then the counts from vitest's JSON
// report as the last line: "N passed, M failed".
// TEST_NODES (comma-separated node binaries) runs the whole suite once on each, e.g. on
// Node 24 and on the machine's Node 20, and sums the counts; default: this Node.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureDependencies, ensureTemporalCli, ensureXjdfSchema, root } from './lib/prepare.mjs';

ensureDependencies();
ensureTemporalCli();
ensureXjdfSchema();

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
// Arguments given (a file, a filter) are one run as vitest would do it.
const ALONE = 'test/**/*.alone.test.ts';
const args = process.argv.slice(2);
const phases =
  args.length > 0
    ? [args]
    : [
        ['--exclude', ALONE],
        // a filter, not a glob: vitest matches it against the file names
        ['--maxWorkers=1', '--passWithNoTests', '.alone.test.ts'],
      ];
for (const [i, node] of nodes.entries()) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`\n== tests on Node ${version} (${node})`);
  let p = 0;
  let f = 0;
  let s = 0;
  for (const [k, phase] of phases.entries()) {
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

#!/usr/bin/env node
// `npm test`: every suite (unit, contract, integration, e2e) against a throwaway
// PostgreSQL cluster and a Temporal dev server, then the counts from vitest's JSON
// report as the last line: "N passed, M failed, K skipped".
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureDependencies, ensureTemporalCli, root } from './lib/prepare.mjs';

ensureDependencies();
ensureTemporalCli();
const report = path.join(root, 'test-results/vitest.json');
mkdirSync(path.dirname(report), { recursive: true });
rmSync(report, { force: true });
const r = spawnSync(
  process.execPath,
  [
    path.join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit', env: process.env },
);
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed = json.numPassedTests;
  failed = json.numFailedTests;
  skipped = json.numPendingTests + json.numTodoTests;
  // a suite that failed to load counts as a failure even though it ran no test
  failed += json.testResults.filter(
    (f) => f.status === 'failed' && f.assertionResults.length === 0,
  ).length;
} else {
  failed = 1;
}
const code = r.status === 0 && failed === 0 ? 0 : r.status || 1;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(code);

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StoredEventFacts } from '../../src/domain/audit/leaf.ts';

/** The offline verifier as a user runs it: its exit code and what it said. */
export const verifier = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['scripts/verify-audit.mjs', ...args], {
    encoding: 'utf8',
  });
  return { code: r.status, said: `${r.stdout}${r.stderr}` };
};

/** Saves values as JSON files in a folder of its own, for the verifier to read. */
export function jsonFiles(prefix: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return (name: string, value: unknown) => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(value));
    return file;
  };
}

/**
 * The log exported as an operator exports it (npm run audit:export), into `file`:
 * answers its events, as stored, in the log's order.
 */
export function exportLog(env: Record<string, string>, file: string) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/export-log.ts', file], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`the export failed: ${r.stderr}`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as StoredEventFacts);
}

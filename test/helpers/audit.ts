import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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

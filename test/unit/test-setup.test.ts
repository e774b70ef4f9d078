import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * `npm test` on a machine without the Debian packages it needs, as a user who cannot
 * install them: it names each and the command, and runs nothing. The packages are hidden
 * (PATH holds only node; PG_BIN and CHROMIUM_PATH point nowhere); as root the check runs
 * as `nobody`, since root would install them.
 */
describe('npm test on a bare machine, not as root', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bare-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names every missing package and the apt-get command, and runs no test', () => {
    mkdirSync(path.join(dir, 'scripts/lib'), { recursive: true });
    for (const f of [
      'scripts/test.mjs',
      'scripts/lib/prepare.mjs',
      'scripts/lib/system-packages.mjs',
    ])
      copyFileSync(path.join(root, f), path.join(dir, f));
    mkdirSync(path.join(dir, 'bin'));
    // a copy, not a link: as `nobody` this Node's own folder may be closed (Node 24 lives
    // under root's home in CI)
    copyFileSync(process.execPath, path.join(dir, 'bin/node'));
    chmodSync(path.join(dir, 'bin/node'), 0o755);
    chmodSync(dir, 0o755);
    const asRoot = process.getuid?.() === 0;
    const r = spawnSync(path.join(dir, 'bin/node'), [path.join(dir, 'scripts/test.mjs')], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: path.join(dir, 'bin'),
        PG_BIN: path.join(dir, 'no-postgresql'),
        CHROMIUM_PATH: path.join(dir, 'no-chromium'),
        HOME: dir,
      },
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      timeout: 30_000,
    });
    expect(r.status, `${r.error ?? ''} ${r.stderr}`).toBe(1);
    const packages = [
      'postgresql',
      'poppler-utils',
      'zbar-tools',
      'qpdf',
      'ghostscript',
      'chromium',
      'libxml2-utils',
      'maven',
    ];
    for (const p of packages) expect(r.stderr).toContain(`missing Debian package ${p}:`);
    expect(r.stderr).toContain(`install them with: sudo apt-get install -y ${packages.join(' ')}`);
    // nothing ran: no npm ci, no tool build, no vitest
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/npm ci|vitest|Temporal/);
  });
});

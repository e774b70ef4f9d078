// The Debian packages `npm test` needs, and how to tell each is there: as root it installs
// the missing ones (as `.ci/run` always did); as another user it names them and stops
// before running anything, so a bare machine never gives a trail of unrelated failures.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** A program on PATH (what the tests run by name). */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return true;
    } catch {}
  }
  return false;
}

/** PostgreSQL's server binaries as the tests find them: PG_BIN, else /usr/lib/postgresql/N/bin. */
function postgresServer() {
  if (process.env.PG_BIN) return existsSync(path.join(process.env.PG_BIN, 'initdb'));
  const root = '/usr/lib/postgresql';
  return (
    existsSync(root) &&
    readdirSync(root).some((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
  );
}

export const TEST_PACKAGES = [
  {
    name: 'postgresql',
    what: "PostgreSQL's server binaries (initdb, postgres; or PG_BIN): the tests start a throwaway cluster",
    present: postgresServer,
  },
  {
    name: 'poppler-utils',
    what: 'pdftoppm, pdfimages, pdffonts, pdfinfo: the print files are rasterised and inspected',
    present: () => onPath('pdftoppm'),
  },
  {
    name: 'zbar-tools',
    what: 'zbarimg: the barcodes on the print files are decoded',
    present: () => onPath('zbarimg'),
  },
  {
    name: 'qpdf',
    what: 'qpdf: the print files are checked as a print shop would',
    present: () => onPath('qpdf'),
  },
  {
    name: 'ghostscript',
    what: 'gs: ink coverage and separations of the print files',
    present: () => onPath('gs'),
  },
  {
    name: 'chromium',
    what: 'the real browser of the ops page and proof page tests (or CHROMIUM_PATH)',
    present: () => existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'),
  },
  {
    name: 'libxml2-utils',
    what: "xmllint: every XJDF job ticket is validated against CIP4's schema",
    present: () => onPath('xmllint'),
  },
  {
    name: 'maven',
    what: "mvn: fetches CIP4's XJDF schema from Maven Central the first time",
    present: () => onPath('mvn') || Boolean(process.env.XJDF_SCHEMA_DIR),
  },
];

const apt = (args) =>
  new Promise((resolve) => {
    const child = spawn('apt-get', args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });

/**
 * Installs the missing packages when running as root (apt-get; its lists refreshed when
 * the install fails on stale ones); otherwise names each missing package and the
 * command that installs them, and exits at once, before any test runs. The check is
 * made before this returns; the install is the promise, so other setup can run beside it.
 */
export function ensureSystemPackages() {
  const missing = TEST_PACKAGES.filter((p) => !p.present());
  if (missing.length === 0) return Promise.resolve();
  const names = missing.map((p) => p.name);
  if (process.getuid?.() !== 0) {
    for (const p of missing) console.error(`[prepare] missing Debian package ${p.name}: ${p.what}`);
    console.error(`[prepare] install them with: sudo apt-get install -y ${names.join(' ')}`);
    console.error('[prepare] (npm test installs them itself when run as root); no test was run');
    process.exit(1);
  }
  return installPackages(names);
}

async function installPackages(names) {
  console.error(`[prepare] installing ${names.join(' ')} (apt-get)`);
  const install = ['install', '-y', '-qq', ...names];
  if (!(await apt(install)) && !((await apt(['update', '-qq'])) && (await apt(install)))) {
    console.error(`[prepare] apt-get could not install ${names.join(' ')}`);
    process.exit(1);
  }
  const still = TEST_PACKAGES.filter((p) => !p.present()).map((p) => p.name);
  if (still.length > 0) {
    console.error(`[prepare] still missing after apt-get: ${still.join(' ')}`);
    process.exit(1);
  }
}

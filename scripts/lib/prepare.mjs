// Shared by `npm start` and `npm test`: make a fresh clone runnable.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** npm ci when the dependencies are missing or older than the lockfile. */
export function ensureDependencies() {
  if (existsSync(path.join(root, 'node_modules/.package-lock.json'))) return;
  console.error('[prepare] installing dependencies (npm ci)');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/**
 * Sets TEMPORAL_CLI_PATH for the local dev server unless a Temporal server is given
 * (TEMPORAL_ADDRESS) or the path is set already: the project's install script puts the
 * official CLI under .cache/. When that fails the SDK's own download is the last resort.
 */
export function ensureTemporalCli() {
  if (process.env.TEMPORAL_ADDRESS || process.env.TEMPORAL_CLI_PATH) return;
  const cli = installedBy('install-temporal-cli.sh');
  if (cli) process.env.TEMPORAL_CLI_PATH = cli;
  else console.error('[prepare] no local Temporal CLI; the SDK will try to download one');
}

/** What one of the project's install scripts printed last (a path), or undefined when it failed. */
function installedBy(script) {
  try {
    const out = execFileSync('bash', [path.join(root, 'scripts', script)], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return out.trim().split('\n').pop();
  } catch {
    return undefined;
  }
}

/**
 * Sets XJDF_SCHEMA_DIR to CIP4's XJDF 2.x schemas (scripts/install-xjdf-schema.sh, cached
 * under ~/.cache): the tests validate every job ticket they make with xmllint against them.
 */
export function ensureXjdfSchema() {
  if (process.env.XJDF_SCHEMA_DIR) return;
  const dir = installedBy('install-xjdf-schema.sh');
  if (dir) process.env.XJDF_SCHEMA_DIR = dir;
  else console.error('[prepare] no XJDF schema: the job-ticket tests will fail');
}

/** The newest modification time under a folder, ms. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    latest = Math.max(
      latest,
      statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs,
    );
  }
  return latest;
}

/**
 * Compiles the TypeScript to dist/ (`npm run build`) when dist/ is missing or older than
 * the sources: the service runs compiled. Run through tsx, every module it loads, those
 * of node_modules too, is rewritten with an inline source map that Node keeps: 55 to
 * 90 MB more in each service process.
 */
export function ensureBuilt() {
  const stamp = path.join(root, 'dist/.built');
  const sources = Math.max(
    ...['src', 'workflows', 'projections'].map((d) => newest(path.join(root, d))),
    ...['package-lock.json', 'tsconfig.json', 'tsconfig.build.json'].map(
      (f) => statSync(path.join(root, f)).mtimeMs,
    ),
  );
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= sources) return;
  console.error('[prepare] compiling to dist/ (npm run build)');
  rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(stamp, '');
}

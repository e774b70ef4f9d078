// Shared by `npm start` and `npm test`: make a fresh clone runnable.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
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

/** What an install script printed last (a path), run beside others; undefined when it failed. */
function installing(script) {
  return new Promise((resolve) => {
    const child = spawn('bash', [path.join(root, 'scripts', script)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve(code === 0 ? out.trim().split('\n').pop() : undefined));
  });
}

/**
 * The tools the tests use, each built or fetched by its install script (cached under
 * ~/.cache, so only the first run pays): the Temporal CLI, MinIO and Jaeger, built with Go
 * at once from the call, and CIP4's XJDF schemas, fetched once `systemPackages` has
 * settled (its fetch may need Debian's Maven). Call it before `npm ci` and await it
 * after: the Go builds then overlap the package installs, which mostly wait on the
 * network. Each sets its variable unless it is set already. The Temporal CLI is needed
 * unless TEMPORAL_ADDRESS names a server; the XJDF schema always (the job-ticket tests
 * fail without it); MinIO and Jaeger only by the suites that use them, which are skipped
 * when they could not be built (said here).
 */
export function ensureTestTools(systemPackages = Promise.resolve()) {
  const tools = [
    [
      'TEMPORAL_CLI_PATH',
      'install-temporal-cli.sh',
      'no local Temporal CLI; the SDK will try to download one',
    ],
    ['MINIO_PATH', 'install-minio.sh', 'no MinIO: the S3 storage tests will be skipped'],
    ['JAEGER_PATH', 'install-jaeger.sh', 'no Jaeger: the tracing tests will be skipped'],
    [
      'XJDF_SCHEMA_DIR',
      'install-xjdf-schema.sh',
      'no XJDF schema: the job-ticket tests will fail',
      systemPackages,
    ],
  ].filter(
    ([variable]) =>
      !process.env[variable] && !(variable === 'TEMPORAL_CLI_PATH' && process.env.TEMPORAL_ADDRESS),
  );
  const paths = tools.map(([, script, , after]) =>
    after ? after.then(() => installing(script)) : installing(script),
  );
  return Promise.all(paths).then((found) => {
    for (const [i, [variable, , missing]] of tools.entries()) {
      if (found[i]) process.env[variable] = found[i];
      else console.error(`[prepare] ${missing}`);
    }
  });
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

// Shared by `npm start` and `npm test`: make a fresh clone runnable.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
  try {
    const out = execFileSync('bash', [path.join(root, 'scripts/install-temporal-cli.sh')], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    process.env.TEMPORAL_CLI_PATH = out.trim().split('\n').pop();
  } catch {
    console.error('[prepare] no local Temporal CLI; the SDK will try to download one');
  }
}

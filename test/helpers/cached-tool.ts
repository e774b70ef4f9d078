import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * A tool the scripts build and cache (MinIO, Jaeger): the path in `pathVar` when it
 * exists, else the one `scripts/<script>` has cached (asked with `noBuildVar` set, so a
 * test never starts a build); undefined when there is none, and its tests are skipped.
 */
export function cachedTool(script: string, pathVar: string, noBuildVar: string) {
  const given = process.env[pathVar];
  if (given && existsSync(given)) return given;
  try {
    const out = execFileSync('bash', [path.resolve(import.meta.dirname, '../../scripts', script)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, [noBuildVar]: '1' },
    }).trim();
    return out && existsSync(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

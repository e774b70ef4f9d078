import { chmod, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The embedded default keeps a database without passwords, secrets and customers'
 * designs under DATA_DIR: on a shared machine nobody else may read or change them. New
 * files are made owner-only (umask 077, which the Temporal dev server inherits), and
 * what an earlier version left readable is closed: folders 0700, files 0600.
 */
export async function makePrivate(dataDir: string): Promise<void> {
  process.umask(0o077);
  await closeUp(dataDir);
}

/**
 * PGlite writes a few files (its relation cache) with an explicit mode of its own, past
 * the umask: they are closed again after the schema is made, and every ten minutes.
 */
export function keepPrivate(dir: string): { stop(): Promise<void> } {
  const timer = setInterval(() => void closeUp(dir).catch(() => {}), 10 * 60_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
    },
  };
}

async function closeUp(dataDir: string): Promise<void> {
  const walk = async (p: string): Promise<void> => {
    const s = await stat(p).catch(() => undefined);
    if (!s) return;
    const wanted = s.isDirectory() ? 0o700 : 0o600;
    if ((s.mode & 0o077) !== 0) await chmod(p, (s.mode & 0o700) | (wanted & 0o700));
    if (s.isDirectory()) {
      for (const entry of await readdir(p).catch(() => [])) await walk(path.join(p, entry));
    }
  };
  await walk(dataDir);
}

import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FileStorage } from './port.ts';

const TMP = '.tmp';

/**
 * Print files in a folder. A file is written under a temporary name in the same folder
 * tree, flushed and renamed into place, so a crash never leaves a half file under a
 * final name; temporary files a crash left behind are removed at start.
 */
export class FilesystemStorage implements FileStorage {
  private constructor(private readonly root: string) {}

  static async open(root: string): Promise<FilesystemStorage> {
    await mkdir(path.join(root, TMP), { recursive: true });
    await rm(path.join(root, TMP), { recursive: true, force: true });
    await mkdir(path.join(root, TMP), { recursive: true });
    return new FilesystemStorage(root);
  }

  private file(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(path.resolve(this.root) + path.sep) || key.includes('..'))
      throw new Error(`bad key ${key}`);
    return full;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.file(key);
    const existing = await stat(target).catch(() => undefined);
    if (existing?.size === bytes.length) return; // content-addressed: already there
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(this.root, TMP, `${randomUUID()}.part`);
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  }

  async get(key: string): Promise<Buffer | undefined> {
    return readFile(this.file(key)).catch(() => undefined);
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string) => {
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else out.push(path.relative(this.root, full));
      }
    };
    await walk(path.join(this.root, prefix));
    return out.sort();
  }
}

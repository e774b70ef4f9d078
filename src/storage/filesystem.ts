import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import {
  access,
  copyFile,
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  utimes,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from '../processes.ts';
import type { FileStorage, OpenedFile } from './port.ts';

const TMP = '.tmp';

/**
 * Print files in a folder. A file is written under a temporary name in the same folder
 * tree, flushed and renamed into place, so a crash never leaves a half file under a
 * final name. Each process writes its temporary files in a folder of its own
 * (`.tmp/<host>-<pid>`); at start, the folders of processes that are gone are removed
 * (on this host at once, from other hosts sharing the folder after an hour).
 */
export class FilesystemStorage implements FileStorage {
  private constructor(
    private readonly root: string,
    private readonly tmp: string,
  ) {}

  static async open(root: string): Promise<FilesystemStorage> {
    const host = os.hostname();
    const tmp = path.join(root, TMP, `${host}-${process.pid}`);
    await mkdir(tmp, { recursive: true });
    for (const entry of await readdir(path.join(root, TMP))) {
      const m = /^(.*)-(\d+)$/.exec(entry);
      const full = path.join(root, TMP, entry);
      if (!m || full === tmp) continue;
      const gone =
        m[1] === host
          ? !processAlive(Number(m[2]))
          : Date.now() - (await stat(full)).mtimeMs > 3_600_000;
      if (gone) await rm(full, { recursive: true, force: true });
    }
    return new FilesystemStorage(root, tmp);
  }

  private file(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(path.resolve(this.root) + path.sep) || key.includes('..'))
      throw new Error(`bad key ${key}`);
    return full;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await this.place(key, bytes.length, async (tmp) => {
      const handle = await open(tmp, 'w');
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }

  async putFile(key: string, file: string, _sha256: string): Promise<void> {
    await this.place(key, (await stat(file)).size, async (tmp) => {
      await copyFile(file, tmp);
      const handle = await open(tmp, 'r+');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }

  /**
   * A file of `size` bytes under `key`: written by `write` to a temporary file, synced and
   * renamed into place. Content-addressed: one of that size there already is the same
   * file, marked as put now (so a clean-up keeps it) instead of written again.
   */
  private async place(key: string, size: number, write: (tmp: string) => Promise<void>) {
    const target = this.file(key);
    const existing = await stat(target).catch(() => undefined);
    if (existing?.size === size) {
      const now = new Date();
      if (
        await utimes(target, now, now).then(
          () => true,
          () => false,
        )
      )
        return;
    }
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(this.tmp, `${randomUUID()}.part`);
    await write(tmp);
    await rename(tmp, target);
  }

  async get(key: string): Promise<Buffer | undefined> {
    return readFile(this.file(key)).catch(() => undefined);
  }

  async open(key: string): Promise<OpenedFile | undefined> {
    const handle = await open(this.file(key), 'r').catch(() => undefined);
    if (!handle) return undefined;
    try {
      // read through the handle: a removal after this point does not cut the download
      const { size } = await handle.stat();
      return { body: handle.createReadStream(), size };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async ping(): Promise<void> {
    await access(this.tmp, constants.R_OK | constants.W_OK);
  }

  async remove(key: string, since: Date): Promise<boolean> {
    const target = this.file(key);
    // moved aside first: a put that comes now finds no file and writes it again, one
    // that came before shows in the moved file's time and the file goes back
    const aside = path.join(this.tmp, `${randomUUID()}.removing`);
    if (
      !(await rename(target, aside).then(
        () => true,
        () => false,
      ))
    )
      return false;
    const { mtimeMs } = await stat(aside);
    if (mtimeMs > since.getTime()) {
      await link(aside, target).catch(() => {}); // unless a put wrote it again meanwhile
      await rm(aside, { force: true });
      return false;
    }
    await rm(aside, { force: true });
    return true;
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
    return out.filter((f) => f.split(path.sep)[0] !== TMP).sort();
  }
}

import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FilesystemStorage } from '../../src/storage/filesystem.ts';
import { storageContract } from './storage.contract.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'storage-'));

/** A process writing the file is killed -9 once part of it is on disk. */
async function killedMidPut(prefix: string, key: string, bytes: Buffer): Promise<void> {
  const dir = path.join(root, prefix);
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/put-and-die.ts', dir, key, String(bytes.length)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  const exited = new Promise((r) => proc.once('exit', r));
  const tmp = path.join(dir, '.tmp', `${os.hostname()}-${proc.pid}`);
  for (const deadline = Date.now() + 30_000; ; ) {
    if (out.includes('written')) throw new Error('the put finished before it could be broken');
    if (Date.now() > deadline) throw new Error(`no partial file appeared: ${out}`);
    const parts = await readdir(tmp).catch(() => [] as string[]);
    const sizes = await Promise.all(
      parts.map((p) =>
        stat(path.join(tmp, p)).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    );
    if (sizes.some((s) => s > 0 && s < bytes.length)) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  proc.kill('SIGKILL');
  await exited;
}

storageContract(
  'filesystem',
  (prefix) => FilesystemStorage.open(path.join(root, prefix)),
  killedMidPut,
);

// npm run bench:storage
// Print-file storage: put, get (whole, into memory) and open (streamed, as downloads are
// served) of real print files, on the filesystem adapter (the baseline) and on S3 (a
// MinIO server on this machine), in the same run, CONCURRENCY at a time. Figures are
// files/s and MiB/s, and S3 as a ratio of the filesystem.
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderPrintFile } from '../src/print/pdf.ts';
import { FilesystemStorage } from '../src/storage/filesystem.ts';
import type { FileStorage } from '../src/storage/port.ts';
import { S3Storage } from '../src/storage/s3.ts';
import { minioBinary, startMinio } from '../test/helpers/minio.ts';
import { cardDesign, cardItem } from './lib/card.ts';

const FILES = Number(process.env.BENCH_FILES ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);

async function printFile(): Promise<Buffer> {
  const { bytes } = await renderPrintFile(cardItem(await cardDesign(), 'BENCH'));
  return Buffer.from(bytes);
}

async function inParallel(n: number, each: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await each(next++);
    }),
  );
  return (performance.now() - began) / 1000;
}

interface Rates {
  put: number;
  get: number;
  open: number;
}

async function measure(store: FileStorage, files: Buffer[]): Promise<Rates> {
  const keys = files.map((f) => {
    const h = createHash('sha256').update(f).digest('hex');
    return `label/${h.slice(0, 2)}/${h}.pdf`;
  });
  await store.put(`warm/${keys[0]}`, files[0]!);
  await store.get(`warm/${keys[0]}`);
  const put = await inParallel(files.length, (i) => store.put(keys[i]!, files[i]!));
  const get = await inParallel(files.length, async (i) => {
    const b = await store.get(keys[i]!);
    if (b?.length !== files[i]!.length) throw new Error('read back other bytes');
  });
  const open = await inParallel(files.length, async (i) => {
    const o = await store.open(keys[i]!);
    let n = 0;
    for await (const chunk of o!.body) n += (chunk as Buffer).length;
    if (n !== files[i]!.length) throw new Error('streamed other bytes');
  });
  return { put: files.length / put, get: files.length / get, open: files.length / open };
}

async function main() {
  const binary = minioBinary();
  if (!binary) throw new Error('no MinIO binary: run scripts/install-minio.sh or set MINIO_PATH');
  const base = await printFile();
  // distinct files of the real size: the same print file with a distinct comment at the end
  const files = Array.from({ length: FILES }, (_, i) =>
    Buffer.concat([base, Buffer.from(`\n%bench ${i} ${randomUUID()}\n`)]),
  );
  const mib = base.length / (1024 * 1024);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-storage-'));
  const minio = await startMinio(binary);
  try {
    const fs = await measure(await FilesystemStorage.open(dir), files);
    const s3 = await measure(S3Storage.open(await minio.bucket('bench'), 'print-files'), files);
    console.log(
      `\n${FILES} print files of ${(base.length / 1024).toFixed(0)} KiB, ${CONCURRENCY} at a time; MinIO on this machine (one drive)\n`,
    );
    console.log(
      '| operation | filesystem files/s (MiB/s) | S3 files/s (MiB/s) | S3 / filesystem |',
    );
    console.log('|---|---:|---:|---:|');
    for (const op of ['put', 'get', 'open'] as const) {
      const label = { put: 'put', get: 'get (whole)', open: 'open (streamed)' }[op];
      console.log(
        `| ${label} | ${fs[op].toFixed(0)} (${(fs[op] * mib).toFixed(0)}) | ${s3[op].toFixed(0)} (${(s3[op] * mib).toFixed(0)}) | ${(s3[op] / fs[op]).toFixed(2)} |`,
      );
    }
  } finally {
    await minio.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

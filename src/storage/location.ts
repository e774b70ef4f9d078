import path from 'node:path';
import type { FileStorage } from './port.ts';
import type { S3Location } from './s3.ts';

/**
 * Where the service's files live, as plain settings: a process of its own (a render
 * process) opens the same stores from them. An S3 bucket when configured, else folders
 * under DATA_DIR.
 */
export type StoreLocation = { s3: S3Location } | { dataDir: string };

/** print files, the content-addressed design images, and the sealed data sets of variable items */
export type StoreName = 'print-files' | 'images' | 'datasets';

/** One store at a location (the S3 client is loaded only where a bucket is used). */
export async function openStore(at: StoreLocation, name: StoreName): Promise<FileStorage> {
  if ('s3' in at) return (await import('./s3.ts')).S3Storage.open(at.s3, name);
  return (await import('./filesystem.ts')).FilesystemStorage.open(path.join(at.dataDir, name));
}

/** the stores of this process, opened once per location and name (a pool process's) */
const opened = new Map<string, Promise<FileStorage>>();

/** A store at a location, opened at its first use in this process and kept. */
export function storeAt(at: StoreLocation, name: StoreName): Promise<FileStorage> {
  const id = `${JSON.stringify(at)}\n${name}`;
  let store = opened.get(id);
  if (!store) {
    store = openStore(at, name);
    opened.set(id, store);
    store.catch(() => opened.delete(id));
  }
  return store;
}

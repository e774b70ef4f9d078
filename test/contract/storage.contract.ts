import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileStorage } from '../../src/storage/port.ts';
import { S3Storage } from '../../src/storage/s3.ts';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const keyOf = (bytes: Buffer, ext = 'pdf') => {
  const h = sha(bytes);
  return `${h.slice(0, 2)}/${h}.${ext}`;
};

/**
 * Starts a put of `bytes` under `key` in the store `prefix` opens and breaks it half-way
 * (the connection cut, the process killed), resolving once it has failed.
 */
export type InterruptedPut = (prefix: string, key: string, bytes: Buffer) => Promise<void>;

/** What every print-file and image store does, whatever holds the bytes. */
export function storageContract(
  name: string,
  open: (prefix: string) => Promise<FileStorage>,
  interruptedPut: InterruptedPut,
) {
  describe(`file storage contract: ${name}`, () => {
    it('puts, gets, lists and removes by key; a missing key reads as undefined', async () => {
      const s = await open('basic');
      const bytes = Buffer.from('%PDF-1.6 one');
      const key = keyOf(bytes);
      expect(await s.get(key)).toBeUndefined();
      await s.put(key, bytes);
      expect(await s.get(key)).toEqual(bytes);
      expect(await s.list(key.slice(0, 2))).toEqual([key]);
      expect(await s.list('')).toEqual([key]);
      expect(await s.remove(key, new Date(Date.now() + 60_000))).toBe(true);
      expect(await s.get(key)).toBeUndefined();
      expect(await s.remove(key, new Date())).toBe(false);
      expect(await s.list('')).toEqual([]);
    });

    it('puts a file of this machine as a stream (putFile), the same file again a no-op', async () => {
      const s = await open('from-file');
      const bytes = Buffer.alloc(6 * 1024 * 1024 + 7);
      for (let i = 0; i < bytes.length; i += 997) bytes[i] = i % 253;
      const dir = mkdtempSync(path.join(os.tmpdir(), 'put-file-'));
      const file = path.join(dir, 'print.pdf');
      writeFileSync(file, bytes);
      const key = keyOf(bytes);
      await s.putFile(key, file, sha(bytes));
      await s.putFile(key, file, sha(bytes));
      expect(sha((await s.get(key))!)).toBe(sha(bytes));
      expect(await s.list('')).toEqual([key]);
      rmSync(dir, { recursive: true, force: true });
    });

    it('serves the bytes whose sha256 names them, binary and large', async () => {
      const s = await open('large');
      const bytes = Buffer.alloc(9 * 1024 * 1024);
      for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i % 251;
      const key = keyOf(bytes);
      await s.put(key, bytes);
      const back = await s.get(key);
      expect(createHash('sha256').update(back!).digest('hex')).toBe(
        key.split('/')[1]!.split('.')[0],
      );
    });

    it('opens a file as a stream with its size; a missing one opens as undefined', async () => {
      const s = await open('stream');
      const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
      const key = keyOf(bytes);
      expect(await s.open(key)).toBeUndefined();
      await s.put(key, bytes);
      const opened = await s.open(key);
      expect(opened!.size).toBe(bytes.length);
      // compared by hash: a deep equality of megabytes takes seconds
      expect(sha(Buffer.concat(await opened!.body.toArray()))).toBe(sha(bytes));
      await s.ping();
    });

    it('signs a download link, when it can, that serves the bytes and their sha256 until it expires', async () => {
      const s = await open('signed');
      // a folder has no links to sign: downloads stream through the API
      if (!(s instanceof S3Storage)) return expect(s.signedUrl).toBeUndefined();
      const bytes = Buffer.from('%PDF-1.6 signed');
      const key = keyOf(bytes);
      await s.put(key, bytes);
      const url = await s.signedUrl!(key, {
        expiresInSeconds: 2,
        contentType: 'application/pdf',
        filename: 'item.pdf',
      });
      const res = await fetch(url, { headers: { 'x-amz-checksum-mode': 'ENABLED' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toBe('inline; filename="item.pdf"');
      expect(res.headers.get('x-amz-checksum-sha256')).toBe(
        createHash('sha256').update(bytes).digest('base64'),
      );
      expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
      await new Promise((r) => setTimeout(r, 3000));
      expect((await fetch(url)).status).toBe(403);
    });

    it('keeps a file put again after the time a removal asks about', async () => {
      const s = await open('keep');
      const bytes = Buffer.from('image bytes');
      const key = keyOf(bytes, 'png');
      await s.put(key, bytes);
      const before = new Date(Date.now() - 60_000);
      expect(await s.remove(key, before)).toBe(false); // put after `before`
      expect(await s.get(key)).toEqual(bytes);
    });

    it('takes 20 concurrent puts of the same content as one file', async () => {
      const s = await open('concurrent');
      const bytes = Buffer.from('the same print file'.repeat(1000));
      const key = keyOf(bytes);
      await Promise.all(Array.from({ length: 20 }, () => s.put(key, bytes)));
      expect(await s.get(key)).toEqual(bytes);
      expect(await s.list('')).toEqual([key]);
    });

    it('lists past a thousand keys (listing pages)', async () => {
      const s = await open('many');
      const keys: string[] = [];
      for (let i = 0; i < 1100; i += 50)
        await Promise.all(
          Array.from({ length: 50 }, (_, j) => {
            const b = Buffer.from(`file ${i + j}`);
            keys.push(keyOf(b));
            return s.put(keyOf(b), b);
          }),
        );
      expect(await s.list('')).toEqual([...keys].sort());
    }, 120_000);

    it('leaves nothing readable of a put broken half-way', async () => {
      const bytes = Buffer.alloc(64 * 1024 * 1024);
      for (let i = 0; i < bytes.length; i += 512) bytes[i] = (i / 512) % 251;
      const key = keyOf(bytes);
      await interruptedPut('broken', key, bytes);
      const s = await open('broken');
      expect(await s.get(key)).toBeUndefined();
      expect(await s.list('')).toEqual([]);
      // and the same put, whole, goes through afterwards
      await s.put(key, bytes);
      expect(sha((await s.get(key))!)).toBe(sha(bytes));
    }, 60_000);

    it('refuses keys that climb out of its place', async () => {
      const s = await open('keys');
      await expect(s.put('../x.pdf', Buffer.from('x'))).rejects.toThrow(/bad key/);
      await expect(s.get('a/../../x.pdf')).rejects.toThrow(/bad key/);
    });
  });
}

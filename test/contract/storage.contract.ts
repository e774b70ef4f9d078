import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileStorage } from '../../src/storage/port.ts';

const keyOf = (bytes: Buffer, ext = 'pdf') => {
  const h = createHash('sha256').update(bytes).digest('hex');
  return `${h.slice(0, 2)}/${h}.${ext}`;
};

/** What every print-file and image store does, whatever holds the bytes. */
export function storageContract(name: string, open: (prefix: string) => Promise<FileStorage>) {
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

    it('refuses keys that climb out of its place', async () => {
      const s = await open('keys');
      await expect(s.put('../x.pdf', Buffer.from('x'))).rejects.toThrow(/bad key/);
      await expect(s.get('a/../../x.pdf')).rejects.toThrow(/bad key/);
    });
  });
}

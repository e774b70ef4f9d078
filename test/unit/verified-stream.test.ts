import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StoredFileChanged, verifiedStream } from '../../src/storage/verified.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const chunks = (b: Buffer, size: number) =>
  Readable.from(
    Array.from({ length: Math.ceil(b.length / size) }, (_, i) =>
      b.subarray(i * size, (i + 1) * size),
    ),
  );

describe('verifiedStream', () => {
  const bytes = Buffer.from('%PDF-1.6 '.repeat(1000));

  it('passes the bytes on whole when their sha256 is the recorded one', async () => {
    const out = Buffer.concat(await verifiedStream(chunks(bytes, 1000), sha(bytes)).toArray());
    expect(out.equals(bytes)).toBe(true);
  });

  it('fails, and never passes on the last chunk, when the bytes are other ones', async () => {
    const other = Buffer.from(bytes);
    other[10] = 0x41;
    const got: Buffer[] = [];
    const stream = verifiedStream(chunks(other, 1000), sha(bytes));
    stream.on('data', (c: Buffer) => got.push(c));
    const error = await new Promise((r) => stream.on('error', r));
    expect(error).toBeInstanceOf(StoredFileChanged);
    expect(Buffer.concat(got).length).toBeLessThan(other.length);
  });

  it('fails when the source fails', async () => {
    const source = new Readable({ read() {} });
    const stream = verifiedStream(source, sha(bytes));
    source.push(bytes.subarray(0, 10));
    source.destroy(new Error('connection reset'));
    await expect(stream.toArray()).rejects.toThrow('connection reset');
  });
});

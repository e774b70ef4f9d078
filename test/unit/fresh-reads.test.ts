import { describe, expect, it } from 'vitest';
import { FreshReads } from '../../src/http/fresh-reads.ts';

/** a read that ends when told, numbered in the order reads began */
function reads() {
  const began: Array<{ n: number; end: (v: string) => void; fail: (e: Error) => void }> = [];
  const read = () =>
    new Promise<string>((resolve, reject) => {
      began.push({ n: began.length + 1, end: resolve, fail: reject });
    });
  return { began, read };
}

describe('FreshReads', () => {
  it('gives requests that came during a read the one read queued after it, never the older one', async () => {
    const fresh = new FreshReads<string>();
    const { began, read } = reads();
    const first = fresh.read('k', read);
    // these came after read 1 began: they must not take its answer
    const later = Array.from({ length: 50 }, () => fresh.read('k', read));
    expect(began).toHaveLength(1);
    began[0]!.end('one');
    expect(await first).toBe('one');
    await new Promise((r) => setImmediate(r));
    expect(began).toHaveLength(2);
    began[1]!.end('two');
    expect(await Promise.all(later)).toEqual(Array(50).fill('two'));
    expect(fresh.busy).toBe(0);
  });

  it('keeps keys apart, and starts afresh once nothing is under way', async () => {
    const fresh = new FreshReads<string>();
    const { began, read } = reads();
    const a = fresh.read('a', read);
    const b = fresh.read('b', read);
    expect(began).toHaveLength(2);
    began[0]!.end('a1');
    began[1]!.end('b1');
    expect([await a, await b]).toEqual(['a1', 'b1']);
    const again = fresh.read('a', read);
    expect(began).toHaveLength(3);
    began[2]!.end('a2');
    expect(await again).toBe('a2');
  });

  it('passes a failed read to those who shared it, and the queued read still runs', async () => {
    const fresh = new FreshReads<string>();
    const { began, read } = reads();
    const first = fresh.read('k', read);
    const second = fresh.read('k', read);
    began[0]!.fail(new Error('gone'));
    await expect(first).rejects.toThrow('gone');
    await new Promise((r) => setImmediate(r));
    began[1]!.end('back');
    expect(await second).toBe('back');
    expect(fresh.busy).toBe(0);
  });
});

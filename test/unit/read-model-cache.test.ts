import { describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../src/db/change-feed.ts';
import { ReadModelCache } from '../../src/db/read-model-cache.ts';

describe('read-model cache', () => {
  const setUp = () => {
    const feed = ChangeFeed.inProcess();
    const cache = new ReadModelCache<{ n: number }>(feed, ['offerings']);
    let reads = 0;
    const read = async () => ({ n: ++reads });
    return { feed, cache, read, reads: () => reads };
  };

  it('answers a repeated read from memory, each caller its own copy', async () => {
    const { cache, read, reads } = setUp();
    const first = await cache.get('a', read);
    first.n = 99;
    expect(await cache.get('a', read)).toEqual({ n: 1 });
    expect(await cache.get('b', read)).toEqual({ n: 2 });
    expect(reads()).toBe(2);
  });

  it('forgets everything when its read model changes, not when another does', async () => {
    const { feed, cache, read } = setUp();
    await cache.get('a', read);
    feed.publish({ kind: 'readModel', projection: 'orders', phase: 'seen' });
    feed.publish({ kind: 'stream', streamId: 'Order-1' });
    expect(await cache.get('a', read)).toEqual({ n: 1 });
    feed.publish({ kind: 'readModel', projection: 'offerings', phase: 'seen' });
    expect(await cache.get('a', read)).toEqual({ n: 2 });
    feed.publish({ kind: 'unknown' });
    expect(await cache.get('a', read)).toEqual({ n: 3 });
  });

  it('neither serves nor keeps while this process commits to it', async () => {
    const { feed, cache, read } = setUp();
    await cache.get('a', read);
    feed.publish({ kind: 'readModel', projection: 'offerings', phase: 'committing' });
    expect(await cache.get('a', read)).toEqual({ n: 2 });
    expect(await cache.get('a', read)).toEqual({ n: 3 });
    feed.publish({ kind: 'readModel', projection: 'offerings', phase: 'committed' });
    expect(await cache.get('a', read)).toEqual({ n: 4 });
    expect(await cache.get('a', read)).toEqual({ n: 4 });
  });

  it('does not keep a read that a change overlapped', async () => {
    const { feed, cache } = setUp();
    let release: () => void = () => {};
    const slow = cache.get(
      'a',
      () => new Promise<{ n: number }>((r) => (release = () => r({ n: 1 }))),
    );
    feed.publish({ kind: 'readModel', projection: 'offerings', phase: 'seen' });
    release();
    expect(await slow).toEqual({ n: 1 });
    expect(await cache.get('a', async () => ({ n: 2 }))).toEqual({ n: 2 });
  });
});

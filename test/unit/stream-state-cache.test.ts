import { describe, expect, it } from 'vitest';
import { StreamStateCache } from '../../src/app/stream-state-cache.ts';
import { ChangeFeed } from '../../src/db/change-feed.ts';

/** A stream whose state is a counter of reads, so a test sees which read it was given. */
function source() {
  let reads = 0;
  return {
    read: async () => ({ exists: true, read: ++reads }),
    get reads() {
      return reads;
    },
  };
}

describe('stream state cache', () => {
  it('serves a stream from memory until that stream changes', async () => {
    const feed = ChangeFeed.inProcess();
    const cache = new StreamStateCache(feed);
    const s = source();
    expect(await cache.load('label-1', s.read)).toEqual({ exists: true, read: 1 });
    expect(await cache.load('label-1', s.read)).toEqual({ exists: true, read: 1 });
    feed.publish({ kind: 'stream', streamId: 'label-2' });
    feed.publish({ kind: 'readModel', projection: 'offerings', phase: 'seen' });
    expect(await cache.load('label-1', s.read)).toEqual({ exists: true, read: 1 });
    feed.publish({ kind: 'stream', streamId: 'label-1' });
    expect(await cache.load('label-1', s.read)).toEqual({ exists: true, read: 2 });
    expect(s.reads).toBe(2);
  });

  it('does not keep a read its stream changed under', async () => {
    const feed = ChangeFeed.inProcess();
    const cache = new StreamStateCache(feed);
    const s = source();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = cache.load('label-1', async () => {
      const state = await s.read();
      await gate; // the stream changes after the read, before the load ends
      return state;
    });
    await new Promise((r) => setImmediate(r));
    feed.publish({ kind: 'stream', streamId: 'label-1' });
    release();
    expect((await slow).read).toBe(1);
    expect((await cache.load('label-1', s.read)).read).toBe(2);
  });

  it('forgets everything when changes may have been missed', async () => {
    const feed = ChangeFeed.inProcess();
    const cache = new StreamStateCache(feed);
    const s = source();
    await cache.load('label-1', s.read);
    feed.publish({ kind: 'unknown' });
    expect((await cache.load('label-1', s.read)).read).toBe(2);
  });

  it('reads every time while the feed is not live, and keeps only what `keep` allows', async () => {
    const s = source();
    const down = ChangeFeed.inProcess();
    down.live = false; // as while a listening connection is lost
    const off = new StreamStateCache(down);
    await off.load('label-1', s.read);
    expect((await off.load('label-1', s.read)).read).toBe(2);

    const cache = new StreamStateCache(ChangeFeed.inProcess());
    const missing = source();
    const keep = (state: { read: number }) => state.read > 1;
    expect((await cache.load('label-9', missing.read, keep)).read).toBe(1);
    expect((await cache.load('label-9', missing.read, keep)).read).toBe(2);
    expect((await cache.load('label-9', missing.read, keep)).read).toBe(2);
  });
});

import { describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../src/db/change-feed.ts';
import {
  AnswerWaits,
  MAX_WAIT_SECONDS,
  preferredWait,
  versionKnown,
  versionOf,
} from '../../src/http/answer-waits.ts';

/** A read model's answer that the test moves on, and how often it was read. */
function answers() {
  const state = { value: 1, reads: 0 };
  return {
    state,
    read: async () => {
      state.reads++;
      return state.value;
    },
  };
}

const commit = (feed: ChangeFeed, projection = 'orders') =>
  feed.publish({ kind: 'readModel', projection, phase: 'committed' });
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('answer versions', () => {
  it('tags equal answers equally and different ones differently', () => {
    expect(versionOf({ a: 1, b: [2] })).toBe(versionOf({ a: 1, b: [2] }));
    expect(versionOf({ a: 1 })).not.toBe(versionOf({ a: 2 }));
    expect(versionOf({ a: 1 })).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('reads If-None-Match as RFC 9110 does: lists, weak tags, any', () => {
    const v = versionOf({ a: 1 });
    expect(versionKnown(v, v)).toBe(true);
    expect(versionKnown(`"other", W/${v}`, v)).toBe(true);
    expect(versionKnown('*', v)).toBe(true);
    expect(versionKnown('"other"', v)).toBe(false);
    expect(versionKnown(undefined, v)).toBe(false);
    expect(versionKnown('', v)).toBe(false);
  });

  it('takes the wait preference, capped, and ignores what it cannot read', () => {
    expect(preferredWait('wait=5')).toBe(5);
    expect(preferredWait('respond-async, Wait="12"')).toBe(12);
    expect(preferredWait('wait=10; foo=bar')).toBe(10);
    expect(preferredWait('wait=100000')).toBe(MAX_WAIT_SECONDS);
    expect(preferredWait('wait=0')).toBe(0);
    for (const bad of [
      undefined,
      '',
      'wait',
      'wait=',
      'wait=-1',
      'wait=1.5',
      'wait=abc',
      'handling=strict',
    ])
      expect(preferredWait(bad), String(bad)).toBeUndefined();
  });
});

describe('answers that wait for a change', () => {
  const waitFor = (
    feed: ChangeFeed,
    a: ReturnType<typeof answers>,
    known: number,
    options: { waitMs?: number; signal?: AbortSignal; waits?: AnswerWaits } = {},
  ) =>
    (options.waits ?? new AnswerWaits(feed, { max: 10, appendsOnFeed: true })).until({
      read: a.read,
      changed: (v) => v !== known,
      readModel: 'orders',
      streamId: 'order-1',
      // far above what an answer on a change takes, so a wait run out is told from it
      waitMs: options.waitMs ?? 30_000,
      signal: options.signal ?? new AbortController().signal,
    });

  it('answers at once when the answer differs already', async () => {
    const feed = ChangeFeed.inProcess();
    const a = answers();
    expect(await waitFor(feed, a, 0)).toEqual({ answer: 1, changed: true, waited: true });
    expect(a.state.reads).toBe(1);
  });

  it('reads again when its stream was appended to and its read model committed', async () => {
    const feed = ChangeFeed.inProcess();
    const a = answers();
    const began = Date.now();
    const waiting = waitFor(feed, a, 1);
    await tick();
    // another read model's commit, and this one's without an append to the stream: not read
    commit(feed, 'webhooks');
    commit(feed);
    await tick();
    expect(a.state.reads).toBe(1);
    feed.publish({ kind: 'stream', streamId: 'order-1' });
    a.state.value = 2;
    commit(feed);
    expect(await waiting).toEqual({ answer: 2, changed: true, waited: true });
    expect(a.state.reads).toBe(2);
    expect(Date.now() - began).toBeLessThan(15_000);
  });

  it('knows of an append made before the wait began, at its read model commit', async () => {
    const feed = ChangeFeed.inProcess();
    const a = answers();
    const waits = new AnswerWaits(feed, { max: 10, appendsOnFeed: true });
    feed.publish({ kind: 'stream', streamId: 'order-1' });
    const waiting = waitFor(feed, a, 1, { waits });
    await tick();
    a.state.value = 2;
    commit(feed);
    expect(await waiting).toEqual({ answer: 2, changed: true, waited: true });
  });

  it('keeps waiting while a commit leaves the answer as it was', async () => {
    const feed = ChangeFeed.inProcess();
    const a = answers();
    const waiting = waitFor(feed, a, 1);
    await tick();
    feed.publish({ kind: 'stream', streamId: 'order-1' });
    commit(feed);
    await tick();
    expect(a.state.reads).toBe(2);
    a.state.value = 3;
    commit(feed);
    expect(await waiting).toEqual({ answer: 3, changed: true, waited: true });
  });

  it('notices a change of another stream within about a second, on the next commit', async () => {
    const feed = ChangeFeed.inProcess();
    const a = answers();
    const waiting = waitFor(feed, a, 1);
    a.state.value = 2;
    await tick(1050);
    commit(feed);
    expect(await waiting).toEqual({ answer: 2, changed: true, waited: true });
  });

  it('without appends on the feed, reads again on its read model commits', async () => {
    const feed = ChangeFeed.inProcess();
    const a = answers();
    const waits = new AnswerWaits(feed, { max: 10, appendsOnFeed: false });
    const waiting = waitFor(feed, a, 1, { waits });
    await tick(150);
    a.state.value = 2;
    commit(feed);
    expect(await waiting).toEqual({ answer: 2, changed: true, waited: true });
  });

  it('answers unchanged when the time is up, or the client or server went away', async () => {
    const feed = ChangeFeed.inProcess();
    const a = answers();
    const began = Date.now();
    expect(await waitFor(feed, a, 1, { waitMs: 200 })).toEqual({
      answer: 1,
      changed: false,
      waited: true,
    });
    expect(Date.now() - began).toBeGreaterThanOrEqual(195);
    const gone = new AbortController();
    const waiting = waitFor(feed, a, 1, { signal: gone.signal });
    await tick();
    gone.abort();
    expect(await waiting).toEqual({ answer: 1, changed: false, waited: true });
  });

  it('answers at once beyond its limit, and frees its places however a wait ends', async () => {
    const feed = ChangeFeed.inProcess();
    const a = answers();
    const waits = new AnswerWaits(feed, { max: 1, appendsOnFeed: true });
    const ended = new AbortController();
    const first = waitFor(feed, a, 1, { waits, waitMs: 20_000, signal: ended.signal });
    await tick();
    expect(waits.waiting).toBe(1);
    const began = Date.now();
    expect(await waitFor(feed, a, 1, { waits })).toEqual({
      answer: 1,
      changed: false,
      waited: false,
    });
    // at once, not after the first wait's 20 s
    expect(Date.now() - began).toBeLessThan(10_000);
    ended.abort();
    await first;
    expect(waits.waiting).toBe(0);
    // a read that fails fails the wait, and frees its place
    let reads = 0;
    const failing = waits.until({
      read: async () => {
        if (++reads > 1) throw new Error('database away');
        return 1;
      },
      changed: (v) => v !== 1,
      readModel: 'orders',
      streamId: 'order-1',
      waitMs: 5000,
      signal: new AbortController().signal,
    });
    await tick();
    feed.publish({ kind: 'stream', streamId: 'order-1' });
    commit(feed);
    await expect(failing).rejects.toThrow('database away');
    expect(waits.waiting).toBe(0);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RenderLoad } from '../../src/print/load.ts';

describe('renderLoad.idle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('waits until no print file has been rendered for the quiet time', async () => {
    const renderLoad = new RenderLoad(2);
    await renderLoad.begin();
    let done = false;
    const idle = renderLoad.idle(1000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(5000);
    expect(done).toBe(false);
    renderLoad.end();
    await vi.advanceTimersByTimeAsync(900);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    await idle;
    expect(done).toBe(true);
  });

  it('gives up waiting after the longest wait, so previews of a busy worker still come', async () => {
    const renderLoad = new RenderLoad(2);
    await renderLoad.begin();
    let done = false;
    const idle = renderLoad.idle(1000, 10_000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(9_000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1_500);
    await idle;
    expect(done).toBe(true);
    renderLoad.end();
  });
});

describe('renderLoad.begin', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('lets `limit` renders run at once; the others wait their turn, in order, heartbeating', async () => {
    const load = new RenderLoad(2);
    const started: number[] = [];
    const beats = [0, 0, 0, 0];
    const renders = [0, 1, 2, 3].map((n) =>
      load.begin(() => beats[n]!++).then(() => started.push(n)),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([0, 1]);
    expect([load.running, load.waiting]).toEqual([2, 2]);
    await vi.advanceTimersByTimeAsync(12_000);
    expect(beats).toEqual([0, 0, 2, 2]); // every 5 s while waiting
    load.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([0, 1, 2]);
    expect([load.running, load.waiting]).toEqual([2, 1]);
    load.end();
    load.end();
    await Promise.all(renders);
    expect(started).toEqual([0, 1, 2, 3]);
    expect([load.running, load.waiting]).toEqual([1, 0]);
    await vi.advanceTimersByTimeAsync(12_000);
    expect(beats).toEqual([0, 0, 2, 2]); // no beats once running
    load.end();
    expect(load.running).toBe(0);
  });

  it('lets waiting renders run when the limit is raised', async () => {
    const load = new RenderLoad(1);
    await load.begin();
    let second = false;
    const next = load.begin().then(() => {
      second = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(second).toBe(false);
    load.setLimit(2);
    await next;
    expect(load.running).toBe(2);
  });
});

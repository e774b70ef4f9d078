import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderLoad } from '../../src/print/load.ts';

describe('renderLoad.idle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('waits until no print file has been rendered for the quiet time', async () => {
    renderLoad.begin();
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
    renderLoad.begin();
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

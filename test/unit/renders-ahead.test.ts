import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RenderLoad } from '../../src/print/load.ts';
import { type AheadOutcome, RendersAhead } from '../../src/print/renders-ahead.ts';

function setUp(slots: number, keepMs = 30_000) {
  const load = new RenderLoad(slots);
  const outcomes: AheadOutcome[] = [];
  const ahead = new RendersAhead<string>(load, (o) => outcomes.push(o), keepMs);
  return { load, outcomes, ahead };
}

/** a render that ends when told */
function pending<T>() {
  let end!: (value: T) => void;
  let fail!: (err: unknown) => void;
  const promise = new Promise<T>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return { promise, end, fail };
}

describe('RendersAhead', () => {
  it('renders on a free slot only, holds it until the render ended, and never queues', async () => {
    const { load, ahead } = setUp(1);
    const render = pending<string>();
    expect(ahead.start('a', 'k', () => render.promise)).toBe(true);
    expect(load.running).toBe(1);
    // no free slot: not started, and nothing waits for one
    const second = vi.fn(async () => 'b');
    expect(ahead.start('b', 'k', second)).toBe(false);
    expect(second).not.toHaveBeenCalled();
    expect(load.waiting).toBe(0);
    render.end('file');
    await ahead.take('a', 'k')!.result;
    expect(load.running).toBe(0);
  });

  it('leaves a slot to a render that waits for one', async () => {
    const { load, ahead } = setUp(1);
    await load.begin();
    const waiting = load.begin();
    load.end(); // the place passes to the one waiting
    await waiting;
    expect(ahead.start('a', 'k', async () => 'file')).toBe(false);
    load.end();
    expect(ahead.start('a', 'k', async () => 'file')).toBe(true);
  });

  it('hands a render over once, to the same id and key', async () => {
    const { ahead, outcomes } = setUp(2);
    ahead.start('a', 'k1', async () => 'file a');
    const taken = ahead.take('a', 'k1');
    expect(await taken?.result).toBe('file a');
    expect(taken?.began).toBeTypeOf('number');
    expect(ahead.take('a', 'k1')).toBeUndefined();
    expect(ahead.take('nobody', 'k1')).toBeUndefined();
    expect(outcomes).toEqual(['taken']);
  });

  it('drops a render made from another job (the order changed meanwhile)', async () => {
    const { ahead, outcomes, load } = setUp(2);
    ahead.start('a', 'old barcode', async () => 'file');
    expect(ahead.take('a', 'new barcode')).toBeUndefined();
    expect(ahead.take('a', 'old barcode')).toBeUndefined();
    expect(outcomes).toEqual(['unclaimed']);
    expect(ahead.size).toBe(0);
    await vi.waitFor(() => expect(load.running).toBe(0));
  });

  it('starts nothing twice for the same id', () => {
    const { ahead, load } = setUp(2);
    expect(ahead.start('a', 'k', () => pending<string>().promise)).toBe(true);
    expect(ahead.start('a', 'k', () => pending<string>().promise)).toBe(false);
    expect(load.running).toBe(1);
  });

  describe('with time', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it('drops a render nobody took in time', async () => {
      const { ahead, outcomes } = setUp(2, 1000);
      ahead.start('a', 'k', async () => 'file');
      await vi.advanceTimersByTimeAsync(999);
      expect(ahead.size).toBe(1);
      await vi.advanceTimersByTimeAsync(2);
      expect(ahead.size).toBe(0);
      expect(ahead.take('a', 'k')).toBeUndefined();
      expect(outcomes).toEqual(['unclaimed']);
    });
  });

  it('gives a failed render to its taker only, and frees its slot', async () => {
    const { ahead, load } = setUp(1);
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const render = pending<string>();
      ahead.start('a', 'k', () => render.promise);
      render.fail(new Error('render process died'));
      await vi.waitFor(() => expect(load.running).toBe(0));
      await expect(ahead.take('a', 'k')!.result).rejects.toThrow('render process died');
      // thrown at once, before any promise: the same
      ahead.start('b', 'k', () => {
        throw new Error('no job');
      });
      await expect(ahead.take('b', 'k')!.result).rejects.toThrow('no job');
      expect(load.running).toBe(0);
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('clear drops every render not taken', () => {
    const { ahead, outcomes } = setUp(2);
    ahead.start('a', 'k', async () => 'a');
    ahead.start('b', 'k', async () => 'b');
    ahead.clear();
    expect(ahead.size).toBe(0);
    expect(outcomes).toEqual(['unclaimed', 'unclaimed']);
  });
});

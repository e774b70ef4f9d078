import { describe, expect, it } from 'vitest';
import { DEFAULT_SHARES, LabelDoor, OverShare, type Shares } from '../../src/shares/door.ts';

const shares: Shares = { ...DEFAULT_SHARES, heavy_read: { running: 2, waiting: 1 } };
const door = (o: Partial<ConstructorParameters<typeof LabelDoor>[0]> = {}) =>
  new LabelDoor({ shares, waitMs: 60_000, ...o });
const settled = async <T>(p: Promise<T>) => {
  let state: 'pending' | 'done' | 'failed' = 'pending';
  p.then(
    () => (state = 'done'),
    () => (state = 'failed'),
  );
  await new Promise((r) => setImmediate(r));
  return state;
};

describe('the label door', () => {
  it("runs a label's share at once, queues the next, refuses past the waiting places naming the class", async () => {
    const d = door();
    const a = await d.enter('L1', 'heavy_read');
    await d.enter('L1', 'heavy_read');
    const third = d.enter('L1', 'heavy_read');
    expect(await settled(third)).toBe('pending');
    const fourth = await d.enter('L1', 'heavy_read').catch((e: unknown) => e);
    expect(fourth).toBeInstanceOf(OverShare);
    expect((fourth as OverShare).costClass).toBe('heavy_read');
    expect((fourth as OverShare).timedOut).toBe(false);
    a();
    expect(await settled(third)).toBe('done');
    expect(d.load().heavy_read).toEqual({ running: 2, waiting: 0, labels: 1 });
  });

  it("never holds one label's request behind another label's line, nor one class behind another", async () => {
    const d = door();
    await d.enter('L1', 'heavy_read');
    await d.enter('L1', 'heavy_read');
    void d.enter('L1', 'heavy_read');
    expect(await settled(d.enter('L2', 'heavy_read'))).toBe('done');
    expect(await settled(d.enter('L1', 'read'))).toBe('done');
  });

  it('refuses a request that waited its whole deadline, and forgets it', async () => {
    const d = door({ waitMs: 20 });
    const leave = await d.enter('L1', 'heavy_read');
    await d.enter('L1', 'heavy_read');
    const waited = await d.enter('L1', 'heavy_read').catch((e: unknown) => e);
    expect((waited as OverShare).timedOut).toBe(true);
    expect(d.load().heavy_read.waiting).toBe(0);
    leave();
    expect(d.load().heavy_read.running).toBe(1);
  });

  it('drops a waiting request whose client went away', async () => {
    const d = door();
    await d.enter('L1', 'heavy_read');
    await d.enter('L1', 'heavy_read');
    const gone = new AbortController();
    const waiting = d.enter('L1', 'heavy_read', gone.signal);
    gone.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect(d.load().heavy_read.waiting).toBe(0);
  });

  it('leaves once however often a leave is called, and forgets an idle label', async () => {
    const d = door();
    const leave = await d.enter('L1', 'write');
    leave();
    leave();
    expect(d.load().write).toEqual({ running: 0, waiting: 0, labels: 0 });
  });

  it("scales a label's share by its factor and splits it between the processes", () => {
    const d = door({ factorOf: (l) => (l === 'big' ? 4 : 1), processes: () => 2 });
    expect(d.shareOf('big', 'heavy_read')).toEqual({ running: 4, waiting: 2 });
    expect(d.shareOf('small', 'heavy_read')).toEqual({ running: 1, waiting: 0 });
    expect(d.shareOf('small', 'read')).toEqual({ running: 16, waiting: 1024 });
  });

  it('lets no more run than a share that shrank meanwhile', async () => {
    let processes = 1;
    const d = door({
      shares: { ...shares, heavy_read: { running: 2, waiting: 4 } },
      processes: () => processes,
    });
    const first = await d.enter('L1', 'heavy_read');
    const second = await d.enter('L1', 'heavy_read');
    processes = 2; // now one place here
    const third = d.enter('L1', 'heavy_read');
    first();
    expect(await settled(third)).toBe('pending');
    second();
    expect(await settled(third)).toBe('done');
    expect(d.load().heavy_read.running).toBe(1);
  });
});

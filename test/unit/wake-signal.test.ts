import { describe, expect, it } from 'vitest';
import { WakeSignal } from '../../src/eventstore/subscription.ts';

// A wake is told from a wait run out by waits of 30 s against bounds of 15 s: far above
// what a wake takes on a loaded machine, far below the limit.
const elapsed = async (p: Promise<void>) => {
  const began = performance.now();
  await p;
  return performance.now() - began;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const wantsOrders = (types: readonly string[]) => types.includes('OrderReceived');

describe('WakeSignal', () => {
  it('a reader busy when appends of its types happen does not wait out its limit', async () => {
    const signal = new WakeSignal();
    const reader = signal.reader(wantsOrders);
    // the reader read a page and is handling it; meanwhile an order is appended
    signal.notify(['OrderReceived']);
    expect(await elapsed(reader.wait(30_000))).toBeLessThan(15_000);
    // that append was taken: the wait after it waits again
    expect(await elapsed(reader.wait(150))).toBeGreaterThanOrEqual(140);
    reader.close();
  });

  it('appends of other types neither wake a waiting reader nor cut its next wait short', async () => {
    const signal = new WakeSignal();
    const reader = signal.reader(wantsOrders);
    signal.notify(['PriceSet']);
    const waiting = elapsed(reader.wait(200));
    signal.notify(['PriceSet']);
    expect(await waiting).toBeGreaterThanOrEqual(190);
    reader.close();
  });

  it('wakes a waiting reader of the appended type at once, and every reader when no type is named', async () => {
    const signal = new WakeSignal();
    const orders = signal.reader(wantsOrders);
    const any = signal.reader();
    const forOrders = elapsed(orders.wait(30_000));
    const forAny = elapsed(any.wait(30_000));
    signal.notify(['OrderReceived']);
    expect(await forOrders).toBeLessThan(15_000);
    expect(await forAny).toBeLessThan(15_000);
    const again = elapsed(orders.wait(30_000));
    signal.notify();
    expect(await again).toBeLessThan(15_000);
  });

  it('a one-off wait counts appends from its start only; closing a reader ends its wait', async () => {
    const signal = new WakeSignal();
    signal.notify(['OrderReceived']);
    expect(await elapsed(signal.wait(150, wantsOrders))).toBeGreaterThanOrEqual(140);
    const reader = signal.reader(wantsOrders);
    const waiting = elapsed(reader.wait(30_000));
    reader.close();
    expect(await waiting).toBeLessThan(15_000);
    expect(await elapsed(reader.wait(30_000))).toBeLessThan(15_000);
  });

  it('probes only while someone waits, one probe at a time, and wakes the readers of the types it found', async () => {
    let probes = 0;
    let inFlight = 0;
    let most = 0;
    let head = 0;
    const signal = new WakeSignal(async () => {
      probes++;
      most = Math.max(most, ++inFlight);
      await sleep(30); // slower than the probe interval
      inFlight--;
      return { head: String(head), types: ['OrderReceived'] };
    }, 10);
    const reader = signal.reader(wantsOrders);
    // waits that end and begin again while a probe is in flight
    for (let i = 0; i < 10; i++) await reader.wait(25);
    await sleep(100);
    expect(most).toBe(1);
    const whileWaiting = probes;
    await sleep(200);
    expect(probes).toBe(whileWaiting);
    // another process appended: the next probe sees the head move
    const woken = elapsed(reader.wait(30_000));
    head++;
    expect(await woken).toBeLessThan(15_000);
    expect(probes).toBeGreaterThan(whileWaiting);
    reader.close();
  });
  it('takes the head a reader saw instead of probing, and wakes the readers of the types it saw', async () => {
    let probes = 0;
    const signal = new WakeSignal(async () => {
      probes++;
      return { head: 'h0', types: [] };
    }, 50);
    const orders = signal.reader(wantsOrders);
    // the first probe learns the head
    await orders.wait(80);
    const probed = probes;
    expect(probed).toBeGreaterThanOrEqual(1);
    expect(signal.head).toBe('h0');
    // readers read to the end every 20 ms: no probe meanwhile
    const waiting = elapsed(orders.wait(200));
    const until = performance.now() + 260;
    while (performance.now() < until) {
      await sleep(20);
      signal.observed('h0', []);
    }
    expect(await waiting).toBeGreaterThanOrEqual(190);
    expect(probes).toBe(probed);
    // a reader saw other processes' orders past the head: the readers of orders wake
    const woken = elapsed(orders.wait(30_000));
    signal.observed('h1', ['OrderReceived']);
    expect(await woken).toBeLessThan(15_000);
    expect(signal.head).toBe('h1');
    // and events of other types past it wake nobody of orders
    const untouched = elapsed(orders.wait(150));
    signal.observed('h2', ['PriceSet']);
    expect(await untouched).toBeGreaterThanOrEqual(140);
    // once readers stop telling, the probe takes over again
    await orders.wait(200);
    expect(probes).toBeGreaterThan(probed);
    orders.close();
  });
});

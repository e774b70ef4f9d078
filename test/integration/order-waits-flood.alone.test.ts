import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { settled } from '../helpers/fixtures.ts';
import { anotherLabelServed, expectOthersServed, watchLoop } from '../helpers/loop-watch.ts';
import { accessOf, type Shop, setUpShop, until } from '../helpers/orders.ts';

/*
 * 2,000 clients at once, sent from this process to the app in this process: the test
 * loads the whole machine, so it runs alone after the rest (*.alone.test.ts). Beside two
 * other test files on two cores, a /readyz of the service it floods waited past its 2 s
 * for a CPU, which says nothing of the service.
 */
describe('a flood of waits', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let b: Shop;
  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    a = await setUpShop(call, accessOf(t), 1);
    b = await setUpShop(call, accessOf(t), 1);
  }, 180_000);
  afterAll(async () => t?.stop());

  it('keeps /readyz green and the loop quick while 2,000 clients wait on one order at once', async () => {
    const orderId = `FLOOD-${randomUUID().slice(0, 8)}`;
    const sale = await call('POST', '/webhook/notifyorder', {
      key: a.shopKey,
      body: { orderId, items: [{ itemId: 'line-0', projectId: a.projects[0], quantity: 1 }] },
    });
    expect(sale.status, JSON.stringify(sale.body)).toBe(200);
    await until(
      `order ${orderId} to be ready`,
      async () => {
        const o = await call('GET', `/api/orders/${orderId}`, { key: a.adminKey });
        return o.body?.status === 'ready' ? true : undefined;
      },
      120_000,
    );
    await settled(t);
    const etag = (await call('GET', `/api/orders/${orderId}`, { key: a.adminKey })).headers.get(
      'etag',
    )!;
    const watch = watchLoop(t.url);
    const served = anotherLabelServed(call, b);
    const began = performance.now();
    const flood = await Promise.all(
      Array.from({ length: 2000 }, () =>
        call('GET', `/api/orders/${orderId}`, {
          key: a.adminKey,
          headers: { 'if-none-match': etag, prefer: 'wait=2' },
        }),
      ),
    );
    const seconds = (performance.now() - began) / 1000;
    const elsewhere = await served;
    const seen = await watch.stop();
    const statuses = new Map<number, number>();
    for (const r of flood) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    console.log(
      `[2,000 waits] ${JSON.stringify([...statuses])} in ${seconds.toFixed(1)} s; another label's read ${elsewhere.readMs.toFixed(0)} ms; loop p99 ${seen.p99.toFixed(1)} ms, max ${seen.max.toFixed(0)} ms; /readyz ${seen.readyz.length} asks, slowest ${Math.max(...seen.readyz.map((r) => r.ms)).toFixed(0)} ms`,
    );
    // the same order's answer asked at once is read once, so the flood does not queue
    // thousands of queries ahead of the other label's read and the readiness check
    expectOthersServed(seen, elsewhere);
    // nothing changed: each is answered 304 (the held ones after their wait), or 429 to come back
    expect([...statuses.keys()].every((s) => s === 304 || s === 429)).toBe(true);
  }, 180_000);
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { settled } from '../helpers/fixtures.ts';
import { accessOf, setUpShop, until } from '../helpers/orders.ts';

/**
 * A service that stops while a client waits for an order's change (Prefer: wait) answers
 * the wait at once with 304, as if its time were up, instead of holding its shutdown
 * until the wait ends.
 */
describe('a service stopped while a client waits for an order to change', () => {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await startTestApp();
  }, 120_000);
  afterAll(async () => t?.stop());

  it('answers the wait with 304 and stops well before the wait would have ended', async () => {
    const app = t!;
    const call = client(app.url);
    const shop = await setUpShop(call, accessOf(app), 1);
    const orderId = `STOP-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.shopKey,
      body: { orderId, items: [{ itemId: 'line-0', projectId: shop.projects[0], quantity: 1 }] },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const get = (headers: Record<string, string> = {}) =>
      call('GET', `/api/orders/${orderId}`, { key: shop.adminKey, headers });
    await until('the order to be ready', async () =>
      (await get()).body?.status === 'ready' ? true : undefined,
    );
    await settled(app);
    const etag = (await get()).headers.get('etag')!;
    let answeredAt = 0;
    const waiting = get({ 'if-none-match': etag, prefer: 'wait=30' }).then((a) => {
      answeredAt = Date.now();
      return a;
    });
    // held: nothing changes the order
    await new Promise((res) => setTimeout(res, 500));
    expect(answeredAt).toBe(0);
    const began = Date.now();
    t = undefined;
    await app.stop();
    const stoppedAt = Date.now();
    const answer = await waiting;
    expect(answer.status).toBe(304);
    expect(answer.headers.get('etag')).toBe(etag);
    expect(answer.headers.get('preference-applied')).toBe('wait=30');
    // the stop answered it (1 s at most here), long before its 30 s were out; the stop did
    // not wait them out either
    expect(answeredAt - began).toBeLessThan(20_000);
    expect(stoppedAt - began).toBeLessThan(25_000);
  }, 180_000);
});

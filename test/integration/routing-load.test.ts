import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_MAXIMUMS } from '../../src/domain/shared/maximums.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { costliestFacility } from '../helpers/costliest-facility.ts';
import { anotherLabelServed, expectOthersServed, watchLoop } from '../helpers/loop-watch.ts';
import { accessOf, type Shop, setUpShop, until } from '../helpers/orders.ts';

/**
 * Routing at a label's worst: its facilities at their maximum, each with a year of
 * holidays (every seventh day left, so the year is searched to its end), then a 20-item
 * sale routed over them while another label is served. Routing reads each facility's
 * calendar, built once, so the service's loop and /readyz must not notice; then a
 * facility holding items is paused and they are routed again.
 */
describe('routing over a label’s most facilities', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let b: Shop;
  const max = LABEL_MAXIMUMS.facilities;

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    a = await setUpShop(call, accessOf(t), 1);
    b = await setUpShop(call, accessOf(t), 1);
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
  });

  const orderOf = async (orderId: string) =>
    (await call('GET', `/api/orders/${orderId}`, { key: a.adminKey })).body as {
      items: { routing: string; facilityId?: string }[];
    };

  it('routes a 20-item sale over 50 facilities with a year of holidays each while another label is served', async () => {
    const watch = watchLoop(t.url);
    const served = anotherLabelServed(call, b);
    for (let f = 0; f < max; f++) {
      const r = await call('POST', '/api/facilities', {
        key: a.adminKey,
        body: costliestFacility(f),
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const sale = await call('POST', '/webhook/notifyorder', {
      key: a.shopKey,
      body: {
        orderId: 'ROUTED-20',
        items: Array.from({ length: 20 }, (_, i) => ({
          itemId: `i${i}`,
          projectId: a.projects[0],
          quantity: 1,
        })),
      },
    });
    expect(sale.status, JSON.stringify(sale.body)).toBe(200);
    const order = await until(
      'every item of the 20 routed',
      async () => {
        const o = await orderOf('ROUTED-20');
        return o.items.every((i) => i.routing !== 'pending') ? o : undefined;
      },
      300_000,
    );
    const elsewhere = await served;
    const seen = await watch.stop();
    // a day's capacity is one item: twenty items, twenty facilities
    const used = new Set(order.items.map((i) => i.facilityId));
    expect(order.items.every((i) => i.routing === 'routed')).toBe(true);
    expect(used.size).toBe(20);
    expectOthersServed(seen, elsewhere);
  }, 420_000);

  it('routes the items of a paused facility elsewhere, the loop not noticing', async () => {
    const before = await orderOf('ROUTED-20');
    const facilityId = before.items[0]!.facilityId!;
    const watch = watchLoop(t.url);
    const paused = await call('POST', `/api/facilities/${facilityId}/pause`, { key: a.adminKey });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    const after = await until(
      'the paused facility’s item routed elsewhere',
      async () => {
        const o = await orderOf('ROUTED-20');
        return o.items[0]!.facilityId !== facilityId && o.items[0]!.routing !== 'pending'
          ? o
          : undefined;
      },
      120_000,
    );
    const seen = await watch.stop();
    expect(after.items[0]!.routing).toBe('routed');
    expect(seen.readyz.filter((r) => r.status !== 200)).toEqual([]);
  }, 180_000);
});

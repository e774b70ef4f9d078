import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  importCatalog,
  type Label,
  newIntegration,
  newLabel,
} from '../helpers/fixtures.ts';

/**
 * Two service processes' worth of the app on one database: `a` runs everything, `b`
 * only the API, as in a deployment with several API instances. `b` caches key owners
 * and offering answers; what `a` changes must reach `b` through the change feed.
 */
describe('caches across API instances', () => {
  let a: TestApp;
  let b: TestApp;
  let callA: ReturnType<typeof client>;
  let callB: ReturnType<typeof client>;
  let label: Label;
  let shop: { id: string; apiKey: string };
  const smartlink = '/api/offering/smartlink?supplier=supplier-a&limit=5';
  const skuData = '/api/offering/sku/data?supplier=supplier-a&sku=CACHE-1';

  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({ DATABASE_URL: a.config.databaseUrl! }, { roles: ['api'] });
    callA = client(a.url);
    callB = client(b.url);
    label = await newLabel(callA, a, 'Cached');
    shop = await newIntegration(callA, a, label.adminApiKey, true);
    await importCatalog(callA, a, 'supplier-a', [config('CACHE-1'), config('CACHE-3')]);
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  /** Asks `b` until the answer passes `done` (what `a` did reaches `b` by notification). */
  async function eventually(ask: () => Promise<Answer>, done: (r: Answer) => boolean) {
    const deadline = Date.now() + 3000;
    for (;;) {
      const r = await ask();
      if (done(r) || Date.now() > deadline) return r;
      await new Promise((res) => setTimeout(res, 20));
    }
  }

  /** Imports, through a, one price for CACHE-1 (answered once the prices projection has it). */
  async function priceCache1(unitPrice: string) {
    const r = await callA('POST', '/api/price/import', {
      key: label.adminApiKey,
      body: {
        currency: 'EUR',
        prices: [{ sku: 'CACHE-1', supplier: 'supplier-a', minQuantity: 1, unitPrice }],
      },
    });
    expect(r.status).toBe(201);
  }

  it('answers a cached read exactly as the first one, with its own request id', async () => {
    const path = '/api/offering/smartlink?supplier=supplier-a&limit=1&offset=1';
    const first = await callB('GET', path, { key: shop.apiKey });
    const second = await callB('GET', path, { key: shop.apiKey });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    for (const h of [
      'content-type',
      'x-total-records',
      'x-pagination-next',
      'x-pagination-previous',
    ])
      expect(second.headers.get(h), h).toBe(first.headers.get(h));
    expect(first.headers.get('x-pagination-previous')).toContain('offset=0');
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    // a bad query is refused even where the same route has cached answers
    const bad = await callB('GET', `${path}&limit=0`, { key: shop.apiKey });
    expect(bad.status).toBe(400);
  });

  it('refuses on b a key rotated on a, and takes the new one', async () => {
    const c = await newIntegration(callA, a, label.adminApiKey, true);
    expect((await callB('GET', smartlink, { key: c.apiKey })).status).toBe(200);
    expect((await callB('GET', smartlink, { key: c.apiKey })).status).toBe(200);
    const rotated = await callA('PUT', `/api/shop-integration/${c.id}/apikey`, {
      key: label.adminApiKey,
    });
    expect(rotated.status).toBe(200);
    const old = await eventually(
      () => callB('GET', smartlink, { key: c.apiKey }),
      (r) => r.status !== 200,
    );
    expect(old.status).toBe(401);
    expect((await callB('GET', smartlink, { key: rotated.body.apiKey })).status).toBe(200);
  });

  it('answers 403 on b once a takes the offering permission away', async () => {
    const c = await newIntegration(callA, a, label.adminApiKey, true);
    expect((await callB('GET', skuData, { key: c.apiKey })).status).toBe(200);
    const p = await callA('PUT', `/operator/shop-integration/${c.id}/permissions`, {
      key: a.operatorKey,
      body: { permissions: [] },
    });
    expect(p.status).toBe(200);
    const r = await eventually(
      () => callB('GET', skuData, { key: c.apiKey }),
      (x) => x.status !== 200,
    );
    expect(r.status).toBe(403);
  });

  it('shows on b the prices and configurations a imported after b cached its answer', async () => {
    const before = await callB('GET', skuData, { key: shop.apiKey });
    expect(before.status).toBe(200);
    expect(before.body.prices).toEqual([]);
    const page = await callB('GET', smartlink, { key: shop.apiKey });
    expect(page.body.map((x: { sku: string }) => x.sku)).toEqual(['CACHE-1', 'CACHE-3']);
    // the same answer again, now from b's cache
    expect((await callB('GET', skuData, { key: shop.apiKey })).body).toEqual(before.body);

    await priceCache1('2.50');
    const after = await eventually(
      () => callB('GET', skuData, { key: shop.apiKey }),
      (r) => r.body.prices?.length === 1,
    );
    expect(after.body.prices).toEqual([{ minQuantity: 1, unitPrice: '2.50', currency: 'EUR' }]);

    await importCatalog(callA, a, 'supplier-a', [config('CACHE-2')]);
    const next = await eventually(
      () => callB('GET', smartlink, { key: shop.apiKey }),
      (r) => r.body.length === 3,
    );
    expect(next.body.map((x: { sku: string }) => x.sku)).toEqual(['CACHE-1', 'CACHE-2', 'CACHE-3']);
    expect(next.headers.get('x-total-records')).toBe('3');
  });

  it('reads your write in the same process: a cached answer never outlives the write', async () => {
    const first = await callA('GET', skuData, { key: shop.apiKey });
    expect(first.status).toBe(200);
    await priceCache1('3.10');
    // no waiting: the import answered once the prices projection had it
    const now = await callA('GET', skuData, { key: shop.apiKey });
    expect(now.body.prices).toEqual([{ minQuantity: 1, unitPrice: '3.10', currency: 'EUR' }]);
  });

  it('goes to the database while b has lost its notifications, then listens again', async () => {
    const c = await newIntegration(callA, a, label.adminApiKey, true);
    expect((await callB('GET', smartlink, { key: c.apiKey })).status).toBe(200);
    // cut b's listening connection, as a failover or a network blip would
    const cut = await a.app.db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE query LIKE 'LISTEN %' AND datname = current_database()`,
    );
    expect(cut.rowCount).toBe(2); // a's and b's
    const lost = await eventually(
      async () => ({ status: 0, headers: new Headers(), body: b.logs.join('\n') }),
      (r) => r.body.includes('change notifications lost'),
    );
    expect(lost.body).toContain('change notifications lost');
    // while nothing can tell b what changed, a rotation shows at once
    const rotated = await callA('PUT', `/api/shop-integration/${c.id}/apikey`, {
      key: label.adminApiKey,
    });
    expect((await callB('GET', smartlink, { key: c.apiKey })).status).toBe(401);
    // listening again (retried after a second): b caches and learns of changes again
    const back = await eventually(
      async () => {
        const r = await a.app.db.pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE query LIKE 'LISTEN %' AND datname = current_database()`,
        );
        return { status: r.rows[0].n, headers: new Headers(), body: undefined };
      },
      (r) => r.status === 2,
    );
    expect(back.status).toBe(2);
    expect((await callB('GET', smartlink, { key: rotated.body.apiKey })).status).toBe(200);
    const again = await callA('PUT', `/api/shop-integration/${c.id}/apikey`, {
      key: label.adminApiKey,
    });
    expect(again.status).toBe(200);
    const r = await eventually(
      () => callB('GET', smartlink, { key: rotated.body.apiKey }),
      (x) => x.status !== 200,
    );
    expect(r.status).toBe(401);
  });
});

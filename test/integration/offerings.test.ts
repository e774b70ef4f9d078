import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  importCatalog,
  type Label,
  newIntegration,
  newLabel,
  refused,
  settled,
} from '../helpers/fixtures.ts';

const ITEM_FIELDS = [
  'sku',
  'baseSKU',
  'skuGroup',
  'printMethod',
  'printPosition',
  'printPositions',
  'printColors',
  'productColor',
  'supplierPrintMethodName',
  'supplierPrintMethodCode',
  'supplierPrintAreaCodes',
  'supplierPrintAreaNames',
].sort();

describe('catalogue, offerings and prices over HTTP', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Label;
  let b: Label;
  let shopA: { id: string; apiKey: string };
  let shopB: { id: string; apiKey: string };
  let noOffering: { id: string; apiKey: string };
  const skus = Array.from({ length: 1205 }, (_, n) => `SA-${String(n).padStart(5, '0')}`);
  const special = ['Mug_100%', 'MUGX100Y', 'abc-EXACT', 'ABC-EXACT-2', 'x-abc-exact-y', 'Hidden-1'];
  // bytewise order (COLLATE "C"), which JavaScript's default sort matches for ASCII
  const visible = [...skus, ...special.filter((s) => s !== 'Hidden-1')].sort();

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    a = await newLabel(call, t, 'A');
    b = await newLabel(call, t, 'B');
    shopA = await newIntegration(call, t, a.adminApiKey, true);
    shopB = await newIntegration(call, t, b.adminApiKey, true);
    noOffering = await newIntegration(call, t, a.adminApiKey, false);
    // shuffled, so order comes from the read model, not from the import
    const shuffled = [...skus].sort(() => Math.random() - 0.5);
    const done = await importCatalog(call, t, 'supplier-a', [
      ...shuffled.map((s) => config(s)),
      ...special.map((s) => config(s, s === 'Hidden-1' ? { published: false } : {})),
    ]);
    expect(done).toMatchObject({
      status: 'completed',
      total: skus.length + special.length,
      created: skus.length + special.length,
      skipped: [],
    });
    await importCatalog(
      call,
      t,
      'supplier-b',
      ['B-1', 'B-2', 'B-3'].map((s) => config(s)),
    );
  }, 120_000);
  afterAll(async () => t?.stop());

  const get = (path: string, key = shopA.apiKey) => call('GET', path, { key });

  describe('GET /api/offering/smartlink', () => {
    it('first page: 20 by default, ordered by SKU, exactly the 2.4 fields, no previous', async () => {
      const r = await get('/api/offering/smartlink?supplier=supplier-a');
      expect(r.status).toBe(200);
      expect(r.body).toHaveLength(20);
      expect(r.body.map((x: { sku: string }) => x.sku)).toEqual(visible.slice(0, 20));
      for (const item of r.body) expect(Object.keys(item).sort()).toEqual(ITEM_FIELDS);
      expect(r.headers.get('x-total-records')).toBe('1000');
      expect(r.headers.get('x-pagination-next')).toBe(
        '/api/offering/smartlink?supplier=supplier-a&limit=20&offset=20',
      );
      expect(r.headers.get('x-pagination-previous')).toBeNull();
    });

    it('a middle page links both ways', async () => {
      const r = await get('/api/offering/smartlink?supplier=supplier-a&limit=100&offset=500');
      expect(r.body).toHaveLength(100);
      expect(r.body.map((x: { sku: string }) => x.sku)).toEqual(visible.slice(500, 600));
      expect(r.headers.get('x-pagination-next')).toBe(
        '/api/offering/smartlink?supplier=supplier-a&limit=100&offset=600',
      );
      expect(r.headers.get('x-pagination-previous')).toBe(
        '/api/offering/smartlink?supplier=supplier-a&limit=100&offset=400',
      );
    });

    it('the last page before the cap has no next', async () => {
      const r = await get('/api/offering/smartlink?supplier=supplier-a&limit=20&offset=980');
      expect(r.body).toHaveLength(20);
      expect(r.body.map((x: { sku: string }) => x.sku)).toEqual(visible.slice(980, 1000));
      expect(r.headers.get('x-pagination-next')).toBeNull();
      expect(r.headers.get('x-pagination-previous')).toBe(
        '/api/offering/smartlink?supplier=supplier-a&limit=20&offset=960',
      );
    });

    it('never reaches past record 1000', async () => {
      const r = await get('/api/offering/smartlink?supplier=supplier-a&limit=50&offset=990');
      expect(r.body).toHaveLength(10);
      expect(r.headers.get('x-pagination-next')).toBeNull();
      const beyond = await get('/api/offering/smartlink?supplier=supplier-a&limit=10&offset=1000');
      expect(beyond.status).toBe(200);
      expect(beyond.body).toEqual([]);
      expect(beyond.headers.get('x-total-records')).toBe('1000');
      expect(beyond.headers.get('x-pagination-previous')).toBe(
        '/api/offering/smartlink?supplier=supplier-a&limit=10&offset=990',
      );
      const all = await get('/api/offering/smartlink?supplier=supplier-a&limit=1000');
      expect(all.body).toHaveLength(1000);
      expect(all.headers.get('x-pagination-next')).toBeNull();
    });

    it('a small supplier fits one page', async () => {
      const r = await get('/api/offering/smartlink?supplier=supplier-b');
      expect(r.body.map((x: { sku: string }) => x.sku)).toEqual(['B-1', 'B-2', 'B-3']);
      expect(r.headers.get('x-total-records')).toBe('3');
      expect(r.headers.get('x-pagination-next')).toBeNull();
    });

    it('refuses limit and offset out of range, and unknown suppliers', async () => {
      for (const q of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc', 'offset=1.5']) {
        await refused(t, call, 400, 'GET', `/api/offering/smartlink?supplier=supplier-a&${q}`, {
          key: shopA.apiKey,
        });
      }
      const body = await refused(t, call, 400, 'GET', '/api/offering/smartlink?supplier=acme', {
        key: shopA.apiKey,
      });
      expect(JSON.stringify(body)).toContain(
        'supplier-a, supplier-b, supplier-c, supplier-d, printshop',
      );
      await refused(t, call, 400, 'GET', '/api/offering/smartlink', { key: shopA.apiKey });
      await refused(t, call, 400, 'GET', '/api/offering/smartlink?supplier=supplier-a&extra=1', {
        key: shopA.apiKey,
      });
    });
  });

  describe('GET /api/offering/sku', () => {
    it('ranks exact, then prefix, then substring matches, case-insensitively', async () => {
      const r = await get('/api/offering/sku?supplier=supplier-a&sku=ABC-exact');
      expect(r.status).toBe(200);
      expect(r.body.map((x: { sku: string }) => x.sku)).toEqual([
        'abc-EXACT',
        'ABC-EXACT-2',
        'x-abc-exact-y',
      ]);
      expect(r.body[0].supplier).toBe('supplier-a');
    });

    it('treats % and _ as literal characters', async () => {
      const underscore = await get('/api/offering/sku?supplier=supplier-a&sku=g_1');
      expect(underscore.body.map((x: { sku: string }) => x.sku)).toEqual(['Mug_100%']);
      const percent = await get(
        `/api/offering/sku?supplier=supplier-a&sku=${encodeURIComponent('0%')}`,
      );
      expect(percent.body.map((x: { sku: string }) => x.sku)).toEqual(['Mug_100%']);
    });

    it('answers at most 50, and hides unpublished configurations', async () => {
      const r = await get('/api/offering/sku?supplier=supplier-a&sku=sa-');
      expect(r.body).toHaveLength(50);
      expect((await get('/api/offering/sku?supplier=supplier-a&sku=hidden')).body).toEqual([]);
      expect((await get('/api/offering/sku?supplier=supplier-a&sku=nothing-like-it')).body).toEqual(
        [],
      );
    });

    it('refuses a missing SKU or supplier', async () => {
      await refused(t, call, 400, 'GET', '/api/offering/sku?supplier=supplier-a', {
        key: shopA.apiKey,
      });
      await refused(t, call, 400, 'GET', '/api/offering/sku?sku=x', { key: shopA.apiKey });
      await refused(t, call, 400, 'GET', '/api/offering/sku?sku=x&supplier=nope', {
        key: shopA.apiKey,
      });
    });
  });

  describe('GET /api/offering/sku/data and prices', () => {
    it('answers the full configuration, 404 for unknown and unpublished SKUs', async () => {
      const r = await get('/api/offering/sku/data?supplier=supplier-a&sku=sa-00042');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        sku: 'SA-00042',
        supplier: 'supplier-a',
        name: 'Product SA-00042',
        published: true,
        prices: [],
        printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 80, heightMm: 50 }],
      });
      expect(r.body.renamedTo).toBeUndefined();
      await refused(t, call, 404, 'GET', '/api/offering/sku/data?supplier=supplier-a&sku=NOPE', {
        key: shopA.apiKey,
      });
      await refused(
        t,
        call,
        404,
        'GET',
        '/api/offering/sku/data?supplier=supplier-a&sku=Hidden-1',
        { key: shopA.apiKey },
      );
      await refused(
        t,
        call,
        404,
        'GET',
        '/api/offering/sku/data?supplier=supplier-b&sku=SA-00042',
        { key: shopA.apiKey },
      );
    });

    it('shows each label its own prices, as decimal strings', async () => {
      const imp = await call('POST', '/api/price/import', {
        key: a.adminApiKey,
        body: {
          currency: 'EUR',
          prices: [
            {
              sku: 'SA-00042',
              supplier: 'supplier-a',
              minQuantity: 1,
              unitPrice: '1.20',
              setupPrice: '25.00',
            },
            { sku: 'sa-00042', supplier: 'supplier-a', minQuantity: 100, unitPrice: '0.95' },
          ],
        },
      });
      expect(imp.status).toBe(201);
      expect(imp.body).toMatchObject({ importId: expect.any(String), imported: 2 });
      const r = await get('/api/offering/sku/data?supplier=supplier-a&sku=SA-00042');
      expect(r.body.prices).toEqual([
        { minQuantity: 1, unitPrice: '1.20', setupPrice: '25.00', currency: 'EUR' },
        { minQuantity: 100, unitPrice: '0.95', currency: 'EUR' },
      ]);
      const other = await get(
        '/api/offering/sku/data?supplier=supplier-a&sku=SA-00042',
        shopB.apiKey,
      );
      expect(other.body.prices).toEqual([]);
      // a second import replaces a tier
      await call('POST', '/api/price/import', {
        key: a.adminApiKey,
        body: {
          currency: 'EUR',
          prices: [{ sku: 'SA-00042', supplier: 'supplier-a', minQuantity: 1, unitPrice: '1.10' }],
        },
      });
      const again = await get('/api/offering/sku/data?supplier=supplier-a&sku=SA-00042');
      expect(again.body.prices[0]).toEqual({ minQuantity: 1, unitPrice: '1.10', currency: 'EUR' });
    });

    it('refuses bad price imports and records nothing', async () => {
      const key = a.adminApiKey;
      const price = { sku: 'SA-00001', supplier: 'supplier-a', minQuantity: 1, unitPrice: '2.00' };
      const unknown = await refused(t, call, 400, 'POST', '/api/price/import', {
        key,
        body: { currency: 'EUR', prices: [price, { ...price, sku: 'GHOST-1' }] },
      });
      expect(unknown.detail).toContain('supplier-a/GHOST-1');
      for (const body of [
        { currency: 'eur', prices: [price] },
        { currency: 'EUR', prices: [{ ...price, unitPrice: 2 }] },
        { currency: 'EUR', prices: [{ ...price, unitPrice: '1.2.3' }] },
        { currency: 'EUR', prices: [{ ...price, minQuantity: 0 }] },
        { currency: 'EUR', prices: [{ ...price, supplier: 'acme' }] },
        { currency: 'EUR', prices: [] },
        { currency: 'EUR', prices: [price, price] },
        { currency: 'EUR', prices: [{ ...price, colour: 'red' }] },
      ]) {
        await refused(t, call, 400, 'POST', '/api/price/import', { key, body });
      }
      await refused(t, call, 403, 'POST', '/api/price/import', {
        key: shopA.apiKey,
        body: { currency: 'EUR', prices: [price] },
      });
    });
  });

  describe('keys and permissions on the offering endpoints', () => {
    it('needs an integration key with the offering permission', async () => {
      const path = '/api/offering/smartlink?supplier=supplier-a';
      const body = await refused(t, call, 403, 'GET', path, { key: noOffering.apiKey });
      expect(body.code).toBe('missing_permission');
      await refused(t, call, 403, 'GET', path, { key: a.adminApiKey });
      await refused(t, call, 403, 'GET', path, { key: a.fulfillmentApiKey });
      await refused(t, call, 401, 'GET', path);
      await refused(t, call, 401, 'GET', path, {
        key: 'ep_int_00000000000000000000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      });
    });

    it('refuses a rotated integration key at once', async () => {
      const shop = await newIntegration(call, t, a.adminApiKey, true);
      expect(
        (await get('/api/offering/sku/data?supplier=supplier-a&sku=SA-00001', shop.apiKey)).status,
      ).toBe(200);
      const r = await call('PUT', `/api/shop-integration/${shop.id}/apikey`, {
        key: a.adminApiKey,
      });
      await refused(
        t,
        call,
        401,
        'GET',
        '/api/offering/sku/data?supplier=supplier-a&sku=SA-00001',
        { key: shop.apiKey },
      );
      expect(
        (await get('/api/offering/sku/data?supplier=supplier-a&sku=SA-00001', r.body.apiKey))
          .status,
      ).toBe(200);
    });
  });

  describe('operator: catalog import and suppliers', () => {
    it('lists the suppliers, the printshop last', async () => {
      const r = await call('GET', '/operator/suppliers', { key: t.operatorKey });
      expect(r.body).toEqual(['supplier-a', 'supplier-b', 'supplier-c', 'supplier-d', 'printshop']);
    });

    it('replaces configurations with the same SKU', async () => {
      await importCatalog(call, t, 'supplier-b', [
        config('b-1', { name: 'Renamed B-1', printColors: 4 }),
      ]);
      const r = await get('/api/offering/sku/data?supplier=supplier-b&sku=B-1');
      expect(r.body).toMatchObject({ sku: 'b-1', name: 'Renamed B-1', printColors: 4 });
    });

    it('refuses bad catalog imports and records nothing', async () => {
      const key = t.operatorKey;
      await refused(t, call, 400, 'POST', '/operator/catalog/acme', { key, body: [config('Z-1')] });
      await refused(t, call, 400, 'POST', '/operator/catalog/supplier-c', { key, body: [] });
      await refused(t, call, 400, 'POST', '/operator/catalog/supplier-c', {
        key,
        body: [config('Z-1'), config('z-1')],
      });
      await refused(t, call, 400, 'POST', '/operator/catalog/supplier-c', {
        key,
        body: [config('Z 1')],
      });
      await refused(t, call, 400, 'POST', '/operator/catalog/supplier-c', {
        key,
        body: [config('Z-1', { colour: 'red' })],
      });
      await refused(t, call, 400, 'POST', '/operator/catalog/supplier-c', {
        key,
        body: [config('Z-1', { printColors: 'two' })],
      });
      await refused(t, call, 400, 'POST', '/operator/catalog/supplier-c', {
        key,
        body: [config('Z-1', { supplier: 'supplier-d' })],
      });
      await refused(t, call, 400, 'POST', '/operator/catalog/supplier-c', {
        key,
        body: { sku: 'Z-1' },
      });
      await refused(t, call, 403, 'POST', '/operator/catalog/supplier-c', {
        key: a.adminApiKey,
        body: [config('Z-1')],
      });
      await refused(
        t,
        call,
        404,
        'GET',
        '/operator/catalog/imports/5f0e8a52-3c1a-4e47-9f57-0d5f4f1c9b11',
        { key },
      );
      await refused(t, call, 400, 'GET', '/operator/catalog/imports/nope', { key });
      const many = Array.from({ length: 10_001 }, (_, n) => ({ sku: `M-${n}` }));
      await refused(t, call, 400, 'POST', '/operator/catalog/supplier-c', { key, body: many });
    });

    it('takes 10,000 configurations in one call', async () => {
      const body = Array.from({ length: 10_000 }, (_, n) =>
        config(`C-${String(n).padStart(5, '0')}`),
      );
      const done = await importCatalog(call, t, 'supplier-c', body);
      expect(done).toMatchObject({ total: 10_000, created: 10_000, processed: 10_000 });
      const r = await get('/api/offering/smartlink?supplier=supplier-c&limit=5&offset=995');
      expect(r.body.map((x: { sku: string }) => x.sku)).toEqual([
        'C-00995',
        'C-00996',
        'C-00997',
        'C-00998',
        'C-00999',
      ]);
      await settled(t);
    }, 120_000);
  });
});

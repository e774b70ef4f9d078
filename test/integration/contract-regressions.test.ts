import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  editorUser,
  importCatalog,
  importDone,
  newIntegration,
  newLabel,
  refused,
  settled,
} from '../helpers/fixtures.ts';
import { until } from '../helpers/orders.ts';
import { listImages } from '../helpers/pdf.ts';

type Call = ReturnType<typeof client>;

/** Things that once answered 500 or disagreed with the contract, kept from coming back. */
describe('the contract as written, and the 500s that are gone', () => {
  let t: TestApp;
  let call: Call;

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
  }, 120_000);
  afterAll(async () => t?.stop());

  it('allocates partner ids after one at the top of the range, and never overflows', async () => {
    const top = await call('POST', '/operator/labels', {
      key: t.operatorKey,
      body: { name: 'Top', partnerId: 2_147_483_647 },
    });
    expect(top.status).toBe(201);
    const next = await call('POST', '/operator/labels', {
      key: t.operatorKey,
      body: { name: 'Next' },
    });
    expect(next.status).toBe(201);
    expect(next.body.partnerId).toBeLessThan(2_147_483_647);
    const again = await call('POST', '/operator/labels', {
      key: t.operatorKey,
      body: { name: 'Again' },
    });
    expect(again.status).toBe(201);
    expect(again.body.partnerId).not.toBe(next.body.partnerId);
    await refused(t, call, 400, 'POST', '/operator/labels', {
      key: t.operatorKey,
      body: { name: 'Over', partnerId: 2_147_483_648 },
    });
  });

  it('takes printshop group names of 101-200 characters, and their slugs', async () => {
    const printshop = await call('POST', '/operator/printshop-keys', {
      key: t.operatorKey,
      body: { name: 'p' },
    });
    const groupName = `Group ${'long name '.repeat(19)}`.slice(0, 200);
    const sku = `LONG-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/v1/api/printshop/sku', {
      key: printshop.body.apiKey,
      body: [{ groupName, skus: [sku] }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const done = await importDone(
      call,
      `/v1/api/printshop/sku/imports/${r.body.importId}`,
      printshop.body.apiKey,
    );
    expect(done.created).toBe(1);
    await refused(t, call, 400, 'POST', '/v1/api/printshop/sku', {
      key: printshop.body.apiKey,
      body: [{ groupName: 'x'.repeat(201), skus: ['TOO-LONG'] }],
    });
  });

  it('imports the contract’s catalogue body with prices; sku/data shows list prices until the label has its own', async () => {
    const label = await newLabel(call, t, 'Prices');
    const shop = await newIntegration(call, t, label.adminApiKey, true);
    const sku = `PRICED-${randomUUID().slice(0, 8)}`;
    const listPrices = [
      { minQuantity: 1, unitPrice: '1.20', setupPrice: '25.00', currency: 'EUR' },
      { minQuantity: 100, unitPrice: '0.95', currency: 'EUR' },
    ];
    // section 3 of the contract, as written (supplier and prices included)
    await importCatalog(call, t, 'supplier-b', [
      { ...config(sku), supplier: 'supplier-b', prices: listPrices },
    ]);
    const detail = async () =>
      (
        await call('GET', `/api/offering/sku/data?sku=${sku}&supplier=supplier-b`, {
          key: shop.apiKey,
        })
      ).body;
    expect(await detail()).toMatchObject({ sku, priceSource: 'list', prices: listPrices });
    const own = await call('POST', '/api/price/import', {
      key: label.adminApiKey,
      body: {
        currency: 'EUR',
        prices: [{ sku, supplier: 'supplier-b', minQuantity: 1, unitPrice: '0.99' }],
      },
    });
    expect(own.status).toBe(201);
    expect(await detail()).toMatchObject({
      priceSource: 'label',
      prices: [{ minQuantity: 1, unitPrice: '0.99', currency: 'EUR' }],
    });
    // another label still sees the list prices
    const other = await newLabel(call, t, 'Other');
    const otherShop = await newIntegration(call, t, other.adminApiKey, true);
    const seen = await call('GET', `/api/offering/sku/data?sku=${sku}&supplier=supplier-b`, {
      key: otherShop.apiKey,
    });
    expect(seen.body).toMatchObject({ priceSource: 'list', prices: listPrices });
  });

  describe('orders', () => {
    let label: Awaited<ReturnType<typeof newLabel>>;
    let shop: { apiKey: string };
    let token: string;
    const sku = `SVG-${randomUUID().slice(0, 6)}`;

    beforeAll(async () => {
      label = await newLabel(call, t, 'Orders');
      shop = await newIntegration(call, t, label.adminApiKey, false);
      await importCatalog(call, t, 'supplier-a', [
        config(sku, {
          printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 320, heightMm: 240 }],
        }),
      ]);
      token = (await editorUser(t, label.labelId, 'svg-buyer')).token;
    }, 60_000);

    const order = async (orderId: string, design: unknown) => {
      const p = await call('POST', '/editor/projects', {
        headers: { authorization: `Bearer ${token}` },
        body: { name: 'P', sku, supplier: 'supplier-a', design },
      });
      expect(p.status, JSON.stringify(p.body)).toBe(201);
      const n = await call('POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId, items: [{ itemId: 'l1', projectId: p.body.id, quantity: 1 }] },
      });
      expect(n.status, JSON.stringify(n.body)).toBe(200);
      return until(`order ${orderId}`, async () => {
        const r = await call('GET', `/api/orders/${encodeURIComponent(orderId)}`, {
          key: label.adminApiKey,
        });
        return r.body?.status === 'ready' || r.body?.status === 'failed' ? r.body : undefined;
      });
    };
    const text = { type: 'text', text: 'x', x: 1, y: 1, fontSize: 10, color: '#000000' };

    it('reads back an order id of 128 characters of any kind, through the path', async () => {
      const orderId = `Ω/ ?#%&${'x'.repeat(121)}`;
      expect([...orderId].length).toBe(128);
      const done = await order(orderId, { areas: [{ printArea: 'FRONT', layers: [text] }] });
      expect(done).toMatchObject({ orderId, status: 'ready' });
      const history = await call('GET', `/api/orders/${encodeURIComponent(orderId)}/history`, {
        key: label.adminApiKey,
      });
      expect(history.status).toBe(200);
      await refused(t, call, 400, 'GET', `/api/orders/${'y'.repeat(129)}`, {
        key: label.adminApiKey,
      });
    });

    it('renders an SVG sized in millimetres at its placed size, at 300 dpi', async () => {
      const svg = Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="80mm" height="60mm" viewBox="0 0 80 60">' +
          '<rect width="80" height="60" fill="#2255aa"/><circle cx="40" cy="30" r="20" fill="#ffcc00"/></svg>',
      );
      const src = `data:image/svg+xml;base64,${svg.toString('base64')}`;
      const done = await order(`SVG-${randomUUID().slice(0, 6)}`, {
        areas: [
          {
            printArea: 'FRONT',
            layers: [{ type: 'image', src, x: 10, y: 10, width: 300, height: 225, rotation: 0 }],
          },
        ],
      });
      expect(done.status, JSON.stringify(done)).toBe('ready');
      const res = await fetch(done.items[0].printFiles[0].url.replace(/^http:\/\/[^/]+/, t.url), {
        headers: { 'x-api-key': label.adminApiKey },
      });
      const images = listImages(new Uint8Array(await res.arrayBuffer()));
      const layer = images.find((i) => i.width > 500)!;
      // 300 mm at 300 dpi (libvips scales an SVG in mm by the density twice: 2.3 gigapixels
      // before this was known)
      expect(layer.width).toBeGreaterThanOrEqual(3542);
      expect(layer.width).toBeLessThanOrEqual(3544);
      expect(layer.xPpi).toBeGreaterThanOrEqual(299);
      expect(layer.xPpi).toBeLessThanOrEqual(301);
    });

    it('refuses at save an image that has more pixels than a print file can take', async () => {
      // a PNG header claiming 20000 x 20000 pixels: metadata alone tells
      const { default: sharp } = await import('sharp');
      const huge = await sharp({
        create: { width: 12_000, height: 9_000, channels: 3, background: '#000' },
      })
        .png({ compressionLevel: 9 })
        .toBuffer();
      const body = await refused(t, call, 400, 'POST', '/editor/projects', {
        headers: { authorization: `Bearer ${token}` },
        body: {
          name: 'Huge',
          sku,
          supplier: 'supplier-a',
          design: {
            areas: [
              {
                printArea: 'FRONT',
                layers: [
                  {
                    type: 'image',
                    src: `data:image/png;base64,${huge.toString('base64')}`,
                    x: 0,
                    y: 0,
                    width: 300,
                    height: 225,
                    rotation: 0,
                  },
                ],
              },
            ],
          },
        },
      });
      expect(body.detail).toMatch(/108 megapixels; at most 100/);
      await settled(t);
    });
  });
});

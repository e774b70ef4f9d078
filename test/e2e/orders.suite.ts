import { createHash, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../src/domain/order/events.ts';
import { workflowIds } from '../../src/temporal/contract.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  editorUser,
  importCatalog,
  type Label,
  newIntegration,
  newLabel,
  refused,
  settled,
  workflowResult,
} from '../helpers/fixtures.ts';
import { sampleValue } from '../helpers/metrics.ts';
import { until } from '../helpers/orders.ts';
import { decodeBarcodes, pageBoxes } from '../helpers/pdf.ts';

const PT = 72 / 25.4;
const A6 = { widthMm: 105, heightMm: 148 };

/**
 * A sale notification to print files, end to end over HTTP against the real Temporal dev
 * server and PostgreSQL; the PDFs are checked from their bytes (boxes parsed, barcode
 * decoded from a rasterised page).
 */
export function saleNotificationSuite(
  where: string,
  env: () => Promise<Record<string, string>> = async () => ({}),
) {
  describe(`sale notifications to print files (${where})`, () => {
    let t: TestApp;
    let call: ReturnType<typeof client>;
    let a: Label;
    let b: Label;
    let shop: { id: string; apiKey: string };
    let token: string;
    let photo: string;
    let tiny: string;

    const design = (layers: unknown[], area = 'FRONT') => ({
      areas: [{ printArea: area, layers }],
    });
    async function project(body: Record<string, unknown>) {
      const r = await call('POST', '/editor/projects', {
        headers: { authorization: `Bearer ${token}` },
        body: { name: 'P', sku: 'MUG-A6', supplier: 'supplier-a', ...body },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as string;
    }
    async function orderDone(orderId: string, key = a.adminApiKey, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const r = await call('GET', `/api/orders/${encodeURIComponent(orderId)}`, { key });
        if (r.status === 200 && (r.body.status === 'ready' || r.body.status === 'failed'))
          return r.body;
        if (Date.now() > deadline) throw new Error(`order not done: ${JSON.stringify(r.body)}`);
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    const pdf = async (url: string) => {
      const res = await fetch(url.replace(/^http:\/\/[^/]+/, t.url), {
        headers: { 'x-api-key': a.adminApiKey },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      const bytes = new Uint8Array(await res.arrayBuffer());
      // what the download says of itself is what it is
      expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
      expect(res.headers.get('etag')).toBe(`"${sha(bytes)}"`);
      expect(res.headers.get('repr-digest')).toBe(
        `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`,
      );
      return bytes;
    };
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

    beforeAll(async () => {
      t = await startTestApp(await env());
      call = client(t.url);
      a = await newLabel(call, t, 'A');
      b = await newLabel(call, t, 'B');
      shop = await newIntegration(call, t, a.adminApiKey, false);
      await importCatalog(call, t, 'supplier-a', [
        config('MUG-A6', {
          printAreas: [
            { code: 'FRONT', name: 'Front', ...A6 },
            { code: 'BACK', name: 'Back', widthMm: 80, heightMm: 50 },
          ],
        }),
      ]);
      token = (await editorUser(t, a.labelId, 'buyer')).token;
      const jpeg = await sharp({
        create: { width: 2400, height: 1600, channels: 3, background: '#3366aa' },
      })
        .jpeg()
        .toBuffer();
      photo = `data:image/jpeg;base64,${jpeg.toString('base64')}`;
      const small = await sharp({
        create: {
          width: 60,
          height: 40,
          channels: 4,
          background: { r: 200, g: 40, b: 40, alpha: 0.5 },
        },
      })
        .png()
        .toBuffer();
      tiny = `data:image/png;base64,${small.toString('base64')}`;
    }, 120_000);
    afterAll(async () => t?.stop());

    it('turns a 3-item order into three print files with the right boxes, pages and barcode', async () => {
      const p1 = await project({
        design: design([
          { type: 'image', src: photo, x: 5, y: 5, width: 95, height: 63, rotation: 0 },
          { type: 'text', text: 'Hello', x: 5, y: 80, fontSize: 14, color: '#1a2b3c' },
        ]),
      });
      const p2 = await project({
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                { type: 'image', src: tiny, x: 10, y: 10, width: 60, height: 40, rotation: 15 },
              ],
            },
            {
              printArea: 'BACK',
              layers: [
                { type: 'text', text: 'Back side', x: 2, y: 2, fontSize: 10, color: '#000000' },
              ],
            },
          ],
        },
      });
      const p3 = await project({
        design: design([
          { type: 'text', text: 'Cart item', x: 1, y: 1, fontSize: 20, color: '#aa0000' },
        ]),
      });
      const cart = await call('POST', '/editor/cart', {
        headers: { authorization: `Bearer ${token}` },
        body: { projectId: p3, quantity: 5 },
      });
      const aheadTaken = async () =>
        sampleValue(
          await (
            await fetch(`${t.url}/metrics`, { headers: { 'x-api-key': t.operatorKey } })
          ).text(),
          'editor_platform_renders_ahead_total',
          { outcome: 'taken' },
        );
      const takenBefore = await aheadTaken();
      const orderId = `SHOP-${randomUUID().slice(0, 8)}`;
      const body = {
        orderId,
        items: [
          { itemId: 'line-1', projectId: p1, quantity: 10 },
          { itemId: 'line-2', projectId: p2, quantity: 1 },
          { itemId: 'line-3', cartItemId: cart.body.id, quantity: 5 },
        ],
        customer: { name: 'Grace Hopper', email: 'grace@example.com' },
      };
      const r = await call('POST', '/webhook/notifyorder', { key: shop.apiKey, body });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ orderId, status: 'accepted' });
      expect(r.body.items.map((i: { itemId: string }) => i.itemId)).toEqual([
        'line-1',
        'line-2',
        'line-3',
      ]);

      const order = await orderDone(orderId);
      expect(order.status).toBe('ready');
      const pagesPerItem = [1, 2, 1];
      for (const [n, item] of order.items.entries()) {
        expect(item.status).toBe('ready');
        expect(item.orderItemId).toBe(r.body.items[n].orderItemId);
        expect(item.printFiles).toHaveLength(1);
        const file = item.printFiles[0];
        const bytes = await pdf(file.url);
        expect(sha(bytes)).toBe(file.sha256);
        expect(bytes.length).toBe(file.bytes);
        expect(file.pages).toBe(pagesPerItem[n]);
        const boxes = await pageBoxes(bytes);
        expect(boxes).toHaveLength(pagesPerItem[n]!);
        const { media, bleed, trim } = boxes[0]!;
        expect(trim.width).toBeCloseTo(A6.widthMm * PT, 1);
        expect(trim.height).toBeCloseTo(A6.heightMm * PT, 1);
        expect(bleed.x).toBeCloseTo(trim.x - 3 * PT, 1);
        expect(bleed.y).toBeCloseTo(trim.y - 3 * PT, 1);
        expect(bleed.width).toBeCloseTo(trim.width + 6 * PT, 1);
        expect(bleed.height).toBeCloseTo(trim.height + 6 * PT, 1);
        expect(media.width).toBeCloseTo(bleed.width, 1);
        expect(media.height).toBeCloseTo(bleed.height + 15 * PT, 1);
        expect(bleed.y).toBeCloseTo(media.y + 15 * PT, 1); // the slug is below the bleed
        const codes = decodeBarcodes(bytes);
        expect(codes).toHaveLength(pagesPerItem[n]!);
        for (const page of codes) expect(page).toEqual([item.orderItemId]);
      }
      // page previews: drawn from the log into the storage, and served
      const first = order.items[0];
      const previewKey = `${a.labelId}/${first.orderItemId}/${first.printFiles[0].sha256}-p1.png`;
      const drawn = await until('the preview to be drawn', () => t.app.storage.get(previewKey));
      const served = await fetch(
        `${t.url}/api/orderitem/${first.orderItemId}/preview?sha256=${first.printFiles[0].sha256}&page=1`,
        { headers: { 'x-api-key': a.adminApiKey } },
      );
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(drawn)).toBe(true);
      expect((await sharp(drawn).metadata()).format).toBe('png');
      expect(order.items[1].warnings.join()).toMatch(/dpi/); // 60 px over 60 mm
      expect(order.items[0].warnings).toEqual([]);

      // the audit trail: every step an event, personal data not in the clear
      const h = await call('GET', `/api/orders/${orderId}/history`, { key: a.adminApiKey });
      expect(h.body.map((e: { type: string }) => e.type)).toEqual([
        'OrderReceived',
        'OrderRenderingStarted',
        'PrintFileGenerated',
        'PrintFilePreflighted',
        'PrintFileGenerated',
        'PrintFilePreflighted',
        'PrintFileGenerated',
        'PrintFilePreflighted',
        'OrderReady',
      ]);
      expect(h.body.map((e: { revision: number }) => e.revision)).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8,
      ]);
      // the last print file and the order's readiness: one step, one append
      const appends = await t.app.db.pool.query<{ type: string; tx: string }>(
        'SELECT type, tx_id::text AS tx FROM es_events WHERE stream_id = $1 ORDER BY revision',
        [orderStream(a.labelId, orderId)],
      );
      const last = appends.rows.slice(-3);
      expect(last.map((r) => r.type)).toEqual([
        'PrintFileGenerated',
        'PrintFilePreflighted',
        'OrderReady',
      ]);
      expect(new Set(last.map((r) => r.tx)).size).toBe(1);
      expect(new Set(appends.rows.map((r) => r.tx)).size).toBe(5);
      expect(JSON.stringify(h.body)).not.toMatch(/Grace|grace@example/);
      // images travel as references into the image store, not as megabytes in events
      expect(JSON.stringify(h.body)).not.toContain('data:image');
      expect(JSON.stringify(h.body)).toMatch(/image:image\/jpeg;sha256,[0-9a-f]{64}/);
      const generated = h.body.filter((e: { type: string }) => e.type === 'PrintFileGenerated');
      expect(generated[0].data.images[0].effectiveDpi).toBeGreaterThan(0);

      // replay renders byte-identical files, those rendered ahead of the workflow too (on
      // the render slots free when the order was read from the log: one or more of its items)
      expect(await aheadTaken()).toBeGreaterThan(takenBefore);
      const replay = await call('POST', `/api/orders/${orderId}/replay`, { key: a.adminApiKey });
      expect(replay.status).toBe(202);
      const results = await workflowResult(t, replay.body.workflowId);
      expect(results).toHaveLength(3);
      for (const res of results) expect(res).toMatchObject({ matches: true });
      expect(results.map((x: { actual: string }) => x.actual).sort()).toEqual(
        order.items
          .map((i: { printFiles: { sha256: string }[] }) => i.printFiles[0]!.sha256)
          .sort(),
      );
      const after = await call('GET', `/api/orders/${orderId}/history`, { key: a.adminApiKey });
      expect(after.body.at(-1).type).toBe('OrderReplayed');
      expect(after.body.some((e: { type: string }) => e.type === 'PrintFileMismatchDetected')).toBe(
        false,
      );

      // the same notification again: the same answer, nothing new; another body: 409
      const again = await call('POST', '/api/notifyorder', { key: shop.apiKey, body });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(r.body);
      await settled(t);
      expect(
        (await call('GET', `/api/orders/${orderId}/history`, { key: a.adminApiKey })).body,
      ).toHaveLength(after.body.length);
      await refused(t, call, 409, 'POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { ...body, items: body.items.slice(0, 2) },
      });

      // other labels see nothing
      await refused(t, call, 404, 'GET', `/api/orders/${orderId}`, { key: b.adminApiKey });
      await refused(t, call, 404, 'GET', `/api/orders/${orderId}/history`, { key: b.adminApiKey });
      await refused(t, call, 404, 'GET', `/api/orderitem/${order.items[0].orderItemId}/printfile`, {
        key: b.adminApiKey,
      });
      await refused(t, call, 404, 'PUT', `/api/orderitem/${order.items[0].orderItemId}/barcode`, {
        key: b.adminApiKey,
        body: { format: 'code128', value: 'X' },
      });
      await refused(t, call, 404, 'POST', `/api/orders/${orderId}/replay`, { key: b.adminApiKey });
    }, 120_000);

    it('records a replay whose bytes differ as a mismatch event and a visible warning', async () => {
      const p = await project({
        design: design([
          { type: 'text', text: 'Tampered', x: 1, y: 1, fontSize: 12, color: '#000000' },
        ]),
      });
      const orderId = `MISMATCH-${randomUUID().slice(0, 8)}`;
      const r = await call('POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId, items: [{ itemId: 'l1', projectId: p, quantity: 1 }] },
      });
      const order = await orderDone(orderId);
      const item = order.items[0];
      // the record claims other bytes than the events render to (as if a library changed)
      const { orderStream } = await import('../../src/domain/order/events.ts');
      const { orderEvents } = await import('../../src/domain/order/events.ts');
      const forged = 'f'.repeat(64);
      const stored = orderEvents.serialize({
        type: 'PrintFileGenerated',
        data: {
          orderItemId: item.orderItemId,
          storageKey: `x/${forged}.pdf`,
          sha256: forged,
          pages: 1,
          bytes: 1,
          barcode: { format: 'code128', value: r.body.items[0].orderItemId },
          images: [],
          warnings: [],
          generatedAt: new Date().toISOString(),
        },
      });
      await t.app.store.append(
        orderStream(a.labelId, orderId),
        [{ id: randomUUID(), ...stored, metadata: { actor: 'test' } }],
        'any',
      );
      const replay = await call('POST', `/api/orders/${orderId}/replay`, { key: a.adminApiKey });
      const results = await workflowResult(t, replay.body.workflowId);
      expect(results).toEqual([
        {
          orderItemId: item.orderItemId,
          expected: forged,
          actual: item.printFiles[0].sha256,
          matches: false,
        },
      ]);
      await settled(t);
      const history = (
        await call('GET', `/api/orders/${orderId}/history`, { key: a.adminApiKey })
      ).body.map((e: { type: string }) => e.type);
      expect(history.slice(-2)).toEqual(['OrderReplayed', 'PrintFileMismatchDetected']);
      const after = (await call('GET', `/api/orders/${orderId}`, { key: a.adminApiKey })).body;
      expect(after.items[0].warnings.join()).toContain('differs from the recorded one');
    }, 60_000);

    it('cuts the download of a print file changed in the storage behind its back; 50 racing downloads are whole', async () => {
      const p = await project({
        design: design([
          { type: 'text', text: 'Changed', x: 1, y: 1, fontSize: 12, color: '#000000' },
        ]),
      });
      const orderId = `CHANGED-${randomUUID().slice(0, 8)}`;
      await call('POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId, items: [{ itemId: 'l1', projectId: p, quantity: 1 }] },
      });
      const order = await orderDone(orderId);
      const file = order.items[0].printFiles[0];
      const original = await pdf(file.url);
      const h = await call('GET', `/api/orders/${orderId}/history`, { key: a.adminApiKey });
      const generated = h.body.find((e: { type: string }) => e.type === 'PrintFileGenerated');
      // other bytes (and another length) under the recorded key, as a faulty disk or a
      // hand in the bucket would leave them
      const changed = Buffer.concat([Buffer.from(original), Buffer.from('\n%changed\n')]);
      await t.app.storage.put(generated.data.storageKey, changed);
      const res = await fetch(file.url.replace(/^http:\/\/[^/]+/, t.url), {
        headers: { 'x-api-key': a.adminApiKey },
      });
      expect(res.status).toBe(200); // the headers left before the bytes could be checked
      await expect(res.arrayBuffer()).rejects.toThrow();
      // put back, it downloads again
      await t.app.storage.put(generated.data.storageKey, original);
      expect(sha(await pdf(file.url))).toBe(file.sha256);

      // 50 downloads racing, with the order's other reads between them: each whole and right
      const raced = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          if (i % 10 === 0)
            expect(
              (await call('GET', `/api/orders/${orderId}`, { key: a.adminApiKey })).status,
            ).toBe(200);
          return sha(await pdf(file.url));
        }),
      );
      expect(new Set(raced)).toEqual(new Set([file.sha256]));
    }, 60_000);

    it('collapses 20 concurrent identical notifications onto one order and one workflow', async () => {
      const p = await project({
        design: design([
          { type: 'text', text: 'Twenty', x: 1, y: 1, fontSize: 12, color: '#000000' },
        ]),
      });
      const orderId = `RACE-${randomUUID().slice(0, 8)}`;
      const body = { orderId, items: [{ itemId: 'l1', projectId: p, quantity: 1 }] };
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          call('POST', '/webhook/notifyorder', { key: shop.apiKey, body }),
        ),
      );
      expect(answers.map((x) => x.status)).toEqual(Array(20).fill(200));
      for (const x of answers) expect(x.body).toEqual(answers[0]!.body);
      await orderDone(orderId);
      const received = await t.app.db.pool.query(
        "SELECT count(*)::int AS n FROM es_events WHERE type = 'OrderReceived' AND data->>'orderId' = $1",
        [orderId],
      );
      expect(received.rows[0].n).toBe(1);
      const workflowId = workflowIds.order(a.labelId, orderId);
      const runs: string[] = [];
      for await (const w of t.app.temporal!.client.workflow.list({
        query: `WorkflowId = '${workflowId}'`,
      }))
        runs.push(w.runId);
      expect(runs).toHaveLength(1);
    }, 60_000);

    it('refuses unknown projects and cart items, recording nothing', async () => {
      const ghost = randomUUID();
      const body = await refused(t, call, 400, 'POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId: 'BAD-1', items: [{ itemId: 'x', projectId: ghost, quantity: 1 }] },
      });
      expect(body.detail).toContain(ghost);
      await refused(t, call, 400, 'POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId: 'BAD-2', items: [{ itemId: 'x', cartItemId: ghost, quantity: 1 }] },
      });
      await refused(t, call, 400, 'POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId: 'BAD-3', items: [{ itemId: 'x', quantity: 1 }] },
      });
      await refused(t, call, 400, 'POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId: '', items: [] },
      });
      await refused(t, call, 400, 'POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId: 'x'.repeat(129), items: [{ itemId: 'x', projectId: ghost, quantity: 1 }] },
      });
      await refused(t, call, 400, 'POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId: 'BAD-4', items: [{ itemId: 'x', projectId: ghost, quantity: 0 }] },
      });
      await refused(t, call, 400, 'POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: {
          orderId: 'BAD-5',
          items: [{ itemId: 'x', projectId: ghost, quantity: 1 }],
          customer: { email: 'nope' },
        },
      });
      await refused(t, call, 403, 'POST', '/webhook/notifyorder', {
        key: a.adminApiKey,
        body: { orderId: 'BAD-6', items: [{ itemId: 'x', projectId: ghost, quantity: 1 }] },
      });
      await refused(t, call, 401, 'POST', '/api/notifyorder', {
        body: { orderId: 'BAD-7', items: [{ itemId: 'x', projectId: ghost, quantity: 1 }] },
      });
    });

    it("takes the notification on the fulfillment API with the label's partner id", async () => {
      const p = await project({
        design: design([
          { type: 'text', text: 'Partner', x: 1, y: 1, fontSize: 12, color: '#000000' },
        ]),
      });
      const body = {
        orderId: `FUL-${randomUUID().slice(0, 8)}`,
        items: [{ itemId: 'l1', projectId: p, quantity: 3 }],
      };
      await refused(t, call, 403, 'POST', `/v1/webhook/partner/${b.partnerId}/notifyorder`, {
        key: a.fulfillmentApiKey,
        body,
      });
      await refused(t, call, 403, 'POST', `/v1/webhook/partner/${a.partnerId}/notifyorder`, {
        key: shop.apiKey,
        body,
      });
      await refused(t, call, 400, 'POST', '/v1/webhook/partner/abc/notifyorder', {
        key: a.fulfillmentApiKey,
        body,
      });
      const r = await call('POST', `/v1/webhook/partner/${a.partnerId}/notifyorder`, {
        key: a.fulfillmentApiKey,
        body,
      });
      expect(r.status).toBe(201);
      expect(r.body.items).toHaveLength(1);
      expect((await orderDone(body.orderId)).status).toBe('ready');
    }, 60_000);

    it('regenerates barcode and print file on a barcode update; the last of two quick updates wins', async () => {
      const p = await project({
        design: design([
          { type: 'text', text: 'Barcode', x: 1, y: 1, fontSize: 12, color: '#000000' },
        ]),
      });
      const orderId = `BC-${randomUUID().slice(0, 8)}`;
      const r = await call('POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId, items: [{ itemId: 'l1', projectId: p, quantity: 1 }] },
      });
      const itemId = r.body.items[0].orderItemId;
      await orderDone(orderId);
      const u = await call('PUT', `/api/orderitem/${itemId}/barcode`, {
        key: a.adminApiKey,
        body: { format: 'ean13', value: '4006381333931' },
      });
      expect(u.status).toBe(200);
      expect(u.body).toEqual({ orderItemId: itemId, workflowId: expect.stringContaining(itemId) });
      await workflowResult(t, u.body.workflowId);
      await settled(t);
      let order = (await call('GET', `/api/orders/${orderId}`, { key: a.adminApiKey })).body;
      expect(order.items[0].barcode).toEqual({ format: 'ean13', value: '4006381333931' });
      expect(order.items[0].printFiles).toHaveLength(2);
      expect(decodeBarcodes(await pdf(order.items[0].printFiles[1].url))).toEqual([
        ['4006381333931'],
      ]);

      const first = await call('PUT', `/api/orderitem/${itemId}/barcode`, {
        key: a.adminApiKey,
        body: { format: 'code128', value: 'FIRST-1' },
      });
      const second = await call('PUT', `/api/orderitem/${itemId}/barcode`, {
        key: a.adminApiKey,
        body: { format: 'code128', value: 'SECOND-2' },
      });
      for (const w of [first.body.workflowId, second.body.workflowId]) await workflowResult(t, w);
      await settled(t);
      order = (await call('GET', `/api/orders/${orderId}`, { key: a.adminApiKey })).body;
      expect(order.items[0].barcode.value).toBe('SECOND-2');
      const latest = await pdf(
        (
          await call('GET', `/api/orders/${orderId}`, { key: a.adminApiKey })
        ).body.items[0].printFiles.at(-1).url,
      );
      expect(decodeBarcodes(latest)).toEqual([['SECOND-2']]);
      const plain = await fetch(`${t.url}/api/orderitem/${itemId}/printfile`, {
        headers: { 'x-api-key': a.adminApiKey },
      });
      expect(decodeBarcodes(new Uint8Array(await plain.arrayBuffer()))).toEqual([['SECOND-2']]);
    }, 120_000);

    it('fails an order whose item cannot be rendered, after the others are done', async () => {
      const ok = await project({
        design: design([
          { type: 'text', text: 'Fine', x: 1, y: 1, fontSize: 12, color: '#000000' },
        ]),
      });
      const back = await project({
        design: design(
          [{ type: 'text', text: 'Back', x: 1, y: 1, fontSize: 12, color: '#000000' }],
          'BACK',
        ),
      });
      // the product loses its BACK area before the sale: the order copies the product as sold
      await importCatalog(call, t, 'supplier-a', [
        config('MUG-A6', { printAreas: [{ code: 'FRONT', name: 'Front', ...A6 }] }),
      ]);
      const orderId = `FAIL-${randomUUID().slice(0, 8)}`;
      await call('POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: {
          orderId,
          items: [
            { itemId: 'good', projectId: ok, quantity: 1 },
            { itemId: 'bad', projectId: back, quantity: 1 },
          ],
        },
      });
      const order = await orderDone(orderId);
      expect(order.status).toBe('failed');
      expect(order.reason).toContain('bad');
      expect(order.items[0].status).toBe('ready');
      expect(order.items[1]).toMatchObject({
        status: 'failed',
        reason: expect.stringContaining('BACK'),
      });
      await importCatalog(call, t, 'supplier-a', [
        config('MUG-A6', {
          printAreas: [
            { code: 'FRONT', name: 'Front', ...A6 },
            { code: 'BACK', name: 'Back', widthMm: 80, heightMm: 50 },
          ],
        }),
      ]);
    }, 60_000);
  });
}

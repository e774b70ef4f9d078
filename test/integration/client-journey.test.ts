import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editorPlatformClient, type Schemas } from '../../clients/typescript/index.ts';
import { type PartnerSimulator, startPartnerSimulator } from '../../src/partner/simulator.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { config } from '../helpers/fixtures.ts';

/** Polls until `probe` answers something, or fails after `ms`. */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 60_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A shop developer's whole journey through the generated TypeScript client
 * (clients/typescript: openapi-fetch over openapi-typescript's types), over real HTTP:
 * label, catalogue, integration, editor signup through the partner's system, project,
 * sale, print file with its sha256, history, replay, and a signed webhook delivery typed
 * by the document's webhooks section. The file type-checks with the rest of the code, so
 * a change of the API that breaks a client breaks `npm run typecheck` too.
 */
describe('the journey through the generated TypeScript client', () => {
  let t: TestApp;
  let partner: PartnerSimulator;
  let receiver: Server;
  const received: { headers: Record<string, string>; body: string }[] = [];

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_ALLOW_HTTP: 'on' });
    partner = await startPartnerSimulator({ apiKey: 'partner-key-for-the-journey' });
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
          body,
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  }, 120_000);
  afterAll(async () => {
    await new Promise((r) => receiver?.close(r));
    await partner?.stop();
    await t?.stop();
  });

  it('is made from the document the service serves', async () => {
    const served = await (await fetch(`${t.url}/openapi.json`)).json();
    const checkedIn = JSON.parse(
      readFileSync(
        path.resolve(import.meta.dirname, '../../clients/typescript/openapi.json'),
        'utf8',
      ),
    );
    expect(served).toEqual(checkedIn);
  });

  it('walks from a new label to a replayed order and a verified webhook', async () => {
    const operator = editorPlatformClient(t.url, { apiKey: t.operatorKey });

    // a label, and the catalogue its shop will sell from
    const label = await operator.POST('/operator/labels', { body: { name: 'Journey Print' } });
    expect(label.response.status).toBe(201);
    const { labelId, adminApiKey } = label.data!;
    const imported = await operator.POST('/operator/catalog/{supplier}', {
      params: { path: { supplier: 'supplier-a' } },
      body: [config('JOURNEY-MUG') as Schemas['CatalogEntry']],
    });
    expect(imported.response.status).toBe(202);
    expect(imported.response.headers.get('location')).toBe(
      `/operator/catalog/imports/${imported.data!.importId}`,
    );
    const progress = await until('the import to complete', async () => {
      const p = await operator.GET('/operator/catalog/imports/{importId}', {
        params: { path: { importId: imported.data!.importId } },
      });
      return p.data?.status === 'completed' ? p.data : undefined;
    });
    expect(progress.created).toBe(1);

    // the shop's integration, allowed to read the catalogue
    const admin = editorPlatformClient(t.url, { apiKey: adminApiKey });
    const integration = await admin.POST('/api/shop-integration', {
      body: { name: 'Journey shop', shopSystem: 'shopware', shopUrl: 'https://shop.example' },
    });
    expect(integration.response.status).toBe(201);
    await operator.PUT('/operator/shop-integration/{id}/permissions', {
      params: { path: { id: integration.data!.id } },
      body: { permissions: ['offering'] },
    });
    const shop = editorPlatformClient(t.url, { apiKey: integration.data!.apiKey });
    const offering = await shop.GET('/api/offering/sku/data', {
      params: { query: { supplier: 'supplier-a', sku: 'JOURNEY-MUG' } },
    });
    expect(offering.data?.printAreas.map((a) => a.code)).toEqual(['FRONT']);

    // its webhook, answering to this test
    const port = (receiver.address() as AddressInfo).port;
    const hook = await admin.PUT('/api/shop-integration/{id}/webhook', {
      params: { path: { id: integration.data!.id } },
      body: { url: `http://127.0.0.1:${port}/hooks`, events: ['order.ready'] },
    });
    expect(hook.data?.state).toBe('enabled');
    const secret = hook.data!.secret;

    // an editor user signs up through the partner's system and saves a project
    await operator.POST('/operator/labels/{labelId}/callbacks', {
      params: { path: { labelId } },
      body: {
        production: { url: partner.url, apiKey: 'partner-key-for-the-journey' },
        environment: 'production',
      },
    });
    const anonymous = editorPlatformClient(t.url);
    const session = await anonymous.POST('/editor/{labelId}/signup', {
      params: { path: { labelId } },
      body: {
        userName: 'grace@example.com',
        password: 'a long password',
        firstName: 'Grace',
        language: 'en',
      },
    });
    expect(session.response.status).toBe(201);
    const editor = editorPlatformClient(t.url, { editorToken: session.data!.token });
    const project = await editor.POST('/editor/projects', {
      body: {
        name: 'Mug for Grace',
        sku: 'JOURNEY-MUG',
        supplier: 'supplier-a',
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                { type: 'text', text: 'Hello, Grace', x: 5, y: 5, fontSize: 14, color: '#1a2b3c' },
              ],
            },
          ],
        },
      },
    });
    expect(project.response.status, JSON.stringify(project.error)).toBe(201);

    // the sale, the order, its print file
    const orderId = `JOURNEY-${Date.now()}`;
    const sale = await shop.POST('/webhook/notifyorder', {
      body: { orderId, items: [{ itemId: 'line-1', projectId: project.data!.id, quantity: 12 }] },
    });
    expect(sale.data?.status).toBe('accepted');
    const order = await until('the order to be ready', async () => {
      const o = await admin.GET('/api/orders/{orderId}', { params: { path: { orderId } } });
      return o.data?.status === 'ready' ? o.data : undefined;
    });
    const file = order.items[0]!.printFiles[0]!;
    const pdf = await admin.GET('/api/orderitem/{id}/printfile', {
      params: { path: { id: order.items[0]!.orderItemId }, query: { sha256: file.sha256 } },
      parseAs: 'arrayBuffer',
    });
    expect(pdf.response.headers.get('content-type')).toBe('application/pdf');
    expect(createHash('sha256').update(Buffer.from(pdf.data!)).digest('hex')).toBe(file.sha256);

    // what happened to it, and a replay that renders it again byte for byte
    const history = await admin.GET('/api/orders/{orderId}/history', {
      params: { path: { orderId } },
    });
    expect(history.data!.map((e) => e.type)).toContain('PrintFileGenerated');
    const replay = await admin.POST('/api/orders/{orderId}/replay', {
      params: { path: { orderId } },
    });
    expect(replay.response.status).toBe(202);
    const replayed = await until('the replay to be recorded', async () => {
      const h = await admin.GET('/api/orders/{orderId}/history', { params: { path: { orderId } } });
      return h.data?.find((e) => e.type === 'OrderReplayed');
    });
    expect(replayed.data).toMatchObject({ results: [{ matches: true }] });

    // the shop's webhook: order.ready, signed, typed by the document's webhooks section
    const delivery = await until('the webhook delivery', async () =>
      received.find((r) => JSON.parse(r.body).data.orderId === orderId),
    );
    const message = new Webhook(secret).verify(
      delivery.body,
      delivery.headers,
    ) as Schemas['OrderReadyMessage'];
    expect(message.type).toBe('order.ready');
    expect(message.data.orderItemIds).toEqual([order.items[0]!.orderItemId]);
    expect(delivery.headers['webhook-id']).toMatch(/^msg_/);
    expect(message.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
  }, 180_000);
});

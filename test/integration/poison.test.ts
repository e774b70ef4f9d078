import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelsProjection } from '../../projections/labels.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  editorUser,
  importCatalog,
  newIntegration,
  newLabel,
  refused,
  settled,
} from '../helpers/fixtures.ts';

type Call = ReturnType<typeof client>;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function orderReady(call: Call, key: string, orderId: string) {
  return until(`order ${orderId}`, async () => {
    const r = await call('GET', `/api/orders/${encodeURIComponent(orderId)}`, { key });
    return r.body?.status === 'ready' || r.body?.status === 'failed' ? r.body : undefined;
  });
}

const textDesign = (text: string) => ({
  areas: [
    {
      printArea: 'FRONT',
      layers: [{ type: 'text', text, x: 1, y: 1, fontSize: 12, color: '#000000' }],
    },
  ],
});

/** A label with a shop, an editor user and a saved project: what an order needs. */
async function shopWithProject(t: TestApp, call: Call, name: string) {
  const label = await newLabel(call, t, name);
  const shop = await newIntegration(call, t, label.adminApiKey, false);
  const { token } = await editorUser(t, label.labelId, `u-${randomUUID()}`);
  const auth = { authorization: `Bearer ${token}` };
  const p = await call('POST', '/editor/projects', {
    headers: auth,
    body: { name: 'P', sku: 'TEE-1', supplier: 'supplier-a', design: textDesign('hi') },
  });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  return { label, shop, auth, projectId: p.body.id as string };
}

describe('text the stores cannot hold, refused at the edge', () => {
  let t: TestApp;
  let call: Call;
  let a: Awaited<ReturnType<typeof shopWithProject>>;

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    await importCatalog(call, t, 'supplier-a', [config('TEE-1')]);
    a = await shopWithProject(t, call, 'A');
  });
  afterAll(async () => t?.stop());

  const expectInvalid = (body: { code: string; errors: { path: string }[] }, path: string) => {
    expect(body.code).toBe('invalid_character');
    expect(body.errors[0]!.path).toBe(path);
  };

  it('refuses NUL in body strings of every kind of command, appending nothing', async () => {
    const nul = 'A\u0000B';
    expectInvalid(
      await refused(t, call, 400, 'POST', '/operator/labels', {
        key: t.operatorKey,
        body: { name: nul },
      }),
      'name',
    );
    expectInvalid(
      await refused(t, call, 400, 'POST', '/api/shop-integration', {
        key: a.label.adminApiKey,
        body: { name: nul, shopSystem: 's', shopUrl: 'https://s.example' },
      }),
      'name',
    );
    expectInvalid(
      await refused(t, call, 400, 'POST', '/webhook/notifyorder', {
        key: a.shop.apiKey,
        body: { orderId: nul, items: [{ itemId: 'l1', projectId: a.projectId, quantity: 1 }] },
      }),
      'orderId',
    );
    expectInvalid(
      await refused(t, call, 400, 'POST', '/editor/projects', {
        headers: a.auth,
        body: { name: nul, sku: 'TEE-1', supplier: 'supplier-a', design: textDesign('x') },
      }),
      'name',
    );
    expectInvalid(
      await refused(t, call, 400, 'POST', '/editor/projects', {
        headers: a.auth,
        body: { name: 'n', sku: 'TEE-1', supplier: 'supplier-a', design: textDesign(nul) },
      }),
      'design.areas.0.layers.0.text',
    );
    expectInvalid(
      await refused(t, call, 400, 'POST', '/operator/catalog/supplier-a', {
        key: t.operatorKey,
        body: [config('TEE-NUL', { name: nul })],
      }),
      '0.name',
    );
    // a key of an object, too
    expectInvalid(
      await refused(t, call, 400, 'POST', '/operator/labels', {
        key: t.operatorKey,
        raw: '{"name":"ok","\\u0000":1}',
      }),
      '(key)',
    );
  });

  it('refuses lone surrogates, which have no UTF-8 form', async () => {
    expectInvalid(
      await refused(t, call, 400, 'POST', '/operator/labels', {
        key: t.operatorKey,
        raw: '{"name":"broken \\ud800 text"}',
      }),
      'name',
    );
  });

  it('refuses NUL in path parameters and in the query', async () => {
    expectInvalid(
      await refused(t, call, 400, 'GET', '/api/orders/x%00y', { key: a.label.adminApiKey }),
      'params.orderId',
    );
    expectInvalid(
      await refused(t, call, 400, 'GET', '/api/partner/user/products?userId=u%00v', {
        key: a.label.adminApiKey,
      }),
      'query.userId',
    );
  });

  it('leaves every label working at once: a new order, project and integration of another label', async () => {
    const b = await shopWithProject(t, call, 'B');
    const created = await call('POST', '/api/shop-integration', {
      key: b.label.adminApiKey,
      body: { name: 'Second', shopSystem: 's', shopUrl: 'https://b.example' },
    });
    expect(created.status).toBe(201);
    const orderId = `AFTER-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: b.shop.apiKey,
      body: { orderId, items: [{ itemId: 'l1', projectId: b.projectId, quantity: 1 }] },
    });
    expect(r.status).toBe(200);
    expect((await orderReady(call, b.label.adminApiKey, orderId)).status).toBe('ready');
  });
});

describe('a poisoned event in the log', () => {
  let t: TestApp;
  let call: Call;

  beforeAll(async () => {
    t = await startTestApp({ PARK_AFTER: '2' });
    call = client(t.url);
    await importCatalog(call, t, 'supplier-a', [config('TEE-1')]);
  });
  afterAll(async () => t?.stop());

  const status = async (name: string) => {
    const r = await call('GET', '/operator/projections', { key: t.operatorKey });
    expect(r.status).toBe(200);
    return r.body.find((p: { name: string }) => p.name === name);
  };

  it('is parked and listed; later events still take effect; retried after a fix, it applies', async () => {
    // written straight into the store, past the edge: PostgreSQL refuses the NUL (22021)
    const poisonedId = randomUUID();
    const poison = {
      id: randomUUID(),
      type: 'LabelCreated',
      schemaVersion: 1,
      data: {
        labelId: poisonedId,
        name: 'Poisoned\u0000Label',
        partnerId: 900_001,
        adminKey: { prefix: 'ep_adm_00000000', sha256: '0'.repeat(64) },
        fulfillmentKey: { prefix: 'ep_ful_00000000', sha256: '1'.repeat(64) },
        createdAt: new Date().toISOString(),
      },
      metadata: { actor: 'test' },
    };
    await t.app.store.append(`Label-${poisonedId}`, [poison], 'no_stream');
    const parked = await until('the event to be parked', async () => {
      const s = await status('labels');
      return s.parked === 1 ? s : undefined;
    });
    expect(parked.parkedEvents[0]).toMatchObject({
      eventId: poison.id,
      type: 'LabelCreated',
      streamId: `Label-${poisonedId}`,
      attempts: 2,
    });
    expect(parked.parkedEvents[0].error).toMatch(/22021|invalid byte sequence/);
    expect(parked.failing).toBeNull();

    // later labels still reach the read model, and the label API works
    const later = await newLabel(call, t, 'After the poison');
    await settled(t);
    const rows = await t.app.db.pool.query('SELECT label_id FROM rm_labels WHERE label_id = $1', [
      later.labelId,
    ]);
    expect(rows.rowCount).toBe(1);
    expect((await call('GET', '/readyz')).status).toBe(200);

    // retried while still broken: still parked
    const again = await call('POST', `/operator/projections/labels/parked/${poison.id}/retry`, {
      key: t.operatorKey,
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ retried: 1, applied: 0 });
    expect(again.body.stillParked[0].attempts).toBe(3);

    // the fix (a release whose projection replaces NUL), then the retry applies it
    const original = labelsProjection.apply;
    labelsProjection.apply = (tx, events) =>
      original(
        tx,
        events.map((e) => ({
          ...e,
          data: { ...e.data, name: String(e.data.name).replaceAll('\u0000', '\uFFFD') },
        })),
      );
    try {
      const fixed = await call('POST', '/operator/projections/labels/parked/retry', {
        key: t.operatorKey,
      });
      expect(fixed.body).toMatchObject({ retried: 1, applied: 1, stillParked: [] });
    } finally {
      labelsProjection.apply = original;
    }
    const healed = await t.app.db.pool.query('SELECT name FROM rm_labels WHERE label_id = $1', [
      poisonedId,
    ]);
    expect(healed.rows[0].name).toBe('Poisoned\uFFFDLabel');
    expect((await status('labels')).parked).toBe(0);
  });

  it('parks an order that cannot be read in the projection and in the reactor; later orders are printed', async () => {
    const label = await newLabel(call, t, 'Orders');
    const stream = `Order-${label.labelId}-${'f'.repeat(40)}`;
    const bad = {
      id: randomUUID(),
      type: 'OrderReceived',
      schemaVersion: 1,
      data: { orderId: 'BROKEN', labelId: label.labelId },
      metadata: { actor: 'test' },
    };
    await t.app.store.append(stream, [bad], 'no_stream');
    await until('the order to be parked twice', async () => {
      const [orders, starts] = [await status('orders'), await status('workflow-starts')];
      return orders.parked === 1 && starts.parked === 1 ? true : undefined;
    });
    expect((await status('workflow-starts')).parkedEvents[0]).toMatchObject({
      eventId: bad.id,
      subscription: 'workflow-starts',
    });
    const listed = await call('GET', '/operator/projections/orders/parked', { key: t.operatorKey });
    expect(listed.body.map((p: { eventId: string }) => p.eventId)).toEqual([bad.id]);

    const shop = await newIntegration(call, t, label.adminApiKey, false);
    const { token } = await editorUser(t, label.labelId, 'buyer');
    const p = await call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${token}` },
      body: { name: 'P', sku: 'TEE-1', supplier: 'supplier-a', design: textDesign('ok') },
    });
    const orderId = `GOOD-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.apiKey,
      body: { orderId, items: [{ itemId: 'l1', projectId: p.body.id, quantity: 1 }] },
    });
    expect(r.status).toBe(200);
    expect((await orderReady(call, label.adminApiKey, orderId)).status).toBe('ready');
  });

  it('answers 404 for parked events of an unknown projection', async () => {
    const r = await call('POST', '/operator/projections/nope/parked/retry', { key: t.operatorKey });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
  });
});

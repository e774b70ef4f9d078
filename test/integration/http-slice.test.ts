import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { refused as refusedAndUnchanged } from '../helpers/fixtures.ts';

/**
 * The foundation slice over real HTTP against real PostgreSQL and Temporal: operator
 * labels, shop integrations end to end, and every kind of bad input, each of which
 * must answer a problem body and append nothing.
 */
describe('HTTP slice: labels and shop integrations', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let labelA: {
    labelId: string;
    partnerId: number;
    adminApiKey: string;
    fulfillmentApiKey: string;
  };
  let labelB: typeof labelA;

  const eventCount = async () =>
    Number((await t.app.db.pool.query('SELECT count(*) AS n FROM es_events')).rows[0].n);

  const refused = (
    status: number,
    method: string,
    path: string,
    options: Parameters<typeof call>[2] = {},
  ) => refusedAndUnchanged(t, call, status, method, path, options);

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    const a = await call('POST', '/operator/labels', {
      key: t.operatorKey,
      body: { name: 'Label A' },
    });
    expect(a.status).toBe(201);
    labelA = a.body;
    const b = await call('POST', '/operator/labels', {
      key: t.operatorKey,
      body: { name: 'Label B', partnerId: 500 },
    });
    expect(b.status).toBe(201);
    labelB = b.body;
  });
  afterAll(async () => t?.stop());

  describe('operator: labels', () => {
    it('creates labels with keys shown once and distinct partner ids', () => {
      expect(labelA.adminApiKey).toMatch(/^ep_adm_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
      expect(labelA.fulfillmentApiKey).toMatch(/^ep_ful_[0-9a-f]{32}_/);
      expect(labelB.partnerId).toBe(500);
      expect(labelA.partnerId).not.toBe(labelB.partnerId);
    });

    it('refuses a partner id that is taken with 409', async () => {
      await refused(409, 'POST', '/operator/labels', {
        key: t.operatorKey,
        body: { name: 'C', partnerId: 500 },
      });
    });

    it('refuses missing, unknown and wrong-kind keys', async () => {
      await refused(401, 'POST', '/operator/labels', { body: { name: 'x' } });
      await refused(401, 'POST', '/operator/labels', { key: 'nope', body: { name: 'x' } });
      await refused(403, 'POST', '/operator/labels', {
        key: labelA.adminApiKey,
        body: { name: 'x' },
      });
    });

    it('refuses bad bodies with field errors', async () => {
      const body = await refused(400, 'POST', '/operator/labels', {
        key: t.operatorKey,
        body: { name: '', partnerId: 'seven', colour: 'red' },
      });
      const paths = body.errors.map((e: { path: string }) => e.path);
      expect(paths).toEqual(expect.arrayContaining(['name', 'partnerId']));
      expect(JSON.stringify(body.errors)).toContain('colour');
      const key = t.operatorKey;
      await refused(400, 'POST', '/operator/labels', { key, raw: '{"name": ' });
      await refused(400, 'POST', '/operator/labels', { key, body: { name: 'x', partnerId: 1.5 } });
      await refused(400, 'POST', '/operator/labels', { key, body: { name: 'x', partnerId: -1 } });
      await refused(415, 'POST', '/operator/labels', {
        key,
        raw: 'name=x',
        headers: { 'content-type': 'text/plain' },
      });
      await refused(413, 'POST', '/operator/labels', {
        key,
        body: { name: 'x'.repeat(1024 * 1024 + 1) },
      });
      await refused(400, 'PUT', '/operator/shop-integration/nope/permissions', {
        key,
        body: { permissions: [] },
      });
    });
  });

  describe('admin: shop integrations', () => {
    const shop = { name: 'Main shop', shopSystem: 'shopware', shopUrl: 'https://shop.example.com' };

    it('creates one and reads it back at once (read-your-writes), then lists it', async () => {
      const c = await call('POST', '/api/shop-integration', {
        key: labelA.adminApiKey,
        body: shop,
      });
      expect(c.status).toBe(201);
      expect(c.body).toMatchObject({ ...shop, permissions: [], id: expect.any(String) });
      expect(c.body.apiKey).toMatch(/^ep_int_/);
      expect(c.body.apiKey.startsWith(c.body.apiKeyPrefix)).toBe(true);
      const g = await call('GET', `/api/shop-integration/${c.body.id}`, {
        key: labelA.adminApiKey,
      });
      expect(g.status).toBe(200);
      expect(g.body).toEqual({
        ...c.body,
        apiKey: undefined,
        createdAt: c.body.createdAt,
        updatedAt: c.body.updatedAt,
      });
      expect(g.body.apiKey).toBeUndefined();
      const l = await call('GET', '/api/shop-integration', { key: labelA.adminApiKey });
      expect(l.status).toBe(200);
      expect(l.body.map((i: { id: string }) => i.id)).toContain(c.body.id);
    });

    it('updates some fields, removes the notification URL with null, and ignores no-op updates', async () => {
      const c = await call('POST', '/api/shop-integration', {
        key: labelA.adminApiKey,
        body: { ...shop, notificationUrl: 'https://shop.example.com/hook' },
      });
      const id = c.body.id;
      const u = await call('PUT', `/api/shop-integration/${id}`, {
        key: labelA.adminApiKey,
        body: { name: 'Renamed', notificationUrl: null },
      });
      expect(u.status).toBe(200);
      expect(u.body).toMatchObject({ name: 'Renamed', shopSystem: 'shopware' });
      expect(u.body.notificationUrl).toBeUndefined();
      const events = await eventCount();
      const same = await call('PUT', `/api/shop-integration/${id}`, {
        key: labelA.adminApiKey,
        body: { name: 'Renamed' },
      });
      expect(same.status).toBe(200);
      expect(await eventCount()).toBe(events);
    });

    it('rotates the key: the old key is refused at once, the new one works', async () => {
      const c = await call('POST', '/api/shop-integration', {
        key: labelA.adminApiKey,
        body: shop,
      });
      const oldKey = c.body.apiKey;
      // an integration key is a valid key without the admin right: 403
      await refused(403, 'GET', '/api/shop-integration', { key: oldKey });
      const r = await call('PUT', `/api/shop-integration/${c.body.id}/apikey`, {
        key: labelA.adminApiKey,
      });
      expect(r.status).toBe(200);
      expect(r.body.id).toBe(c.body.id);
      expect(r.body.apiKey).not.toBe(oldKey);
      await refused(401, 'GET', '/api/shop-integration', { key: oldKey });
      await refused(403, 'GET', '/api/shop-integration', { key: r.body.apiKey });
      const g = await call('GET', `/api/shop-integration/${c.body.id}`, {
        key: labelA.adminApiKey,
      });
      expect(r.body.apiKey.startsWith(g.body.apiKeyPrefix)).toBe(true);
    });

    it("never shows one label another label's integration", async () => {
      const c = await call('POST', '/api/shop-integration', {
        key: labelA.adminApiKey,
        body: shop,
      });
      const id = c.body.id;
      await refused(404, 'GET', `/api/shop-integration/${id}`, { key: labelB.adminApiKey });
      await refused(404, 'PUT', `/api/shop-integration/${id}`, {
        key: labelB.adminApiKey,
        body: { name: 'mine' },
      });
      await refused(404, 'PUT', `/api/shop-integration/${id}/apikey`, { key: labelB.adminApiKey });
      const l = await call('GET', '/api/shop-integration', { key: labelB.adminApiKey });
      expect(l.body.map((i: { id: string }) => i.id)).not.toContain(id);
      // and the fulfillment key of label A is no admin key
      await refused(403, 'GET', '/api/shop-integration', { key: labelA.fulfillmentApiKey });
    });

    it('answers every kind of bad input with a problem and appends nothing', async () => {
      const key = labelA.adminApiKey;
      const c = await call('POST', '/api/shop-integration', { key, body: shop });
      const id = c.body.id;
      const missing = '5f0e8a52-3c1a-4e47-9f57-0d5f4f1c9b11';
      await refused(400, 'POST', '/api/shop-integration', { key, raw: '{"name": "x",' });
      await refused(400, 'POST', '/api/shop-integration', { key, body: { ...shop, name: 42 } });
      await refused(400, 'POST', '/api/shop-integration', {
        key,
        body: { ...shop, shopUrl: 'javascript:alert(1)' },
      });
      await refused(400, 'POST', '/api/shop-integration', { key, body: { ...shop, extra: true } });
      await refused(400, 'POST', '/api/shop-integration', { key, body: [shop] });
      await refused(400, 'POST', '/api/shop-integration', { key });
      await refused(415, 'POST', '/api/shop-integration', {
        key,
        raw: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      await refused(415, 'POST', '/api/shop-integration', {
        key,
        raw: JSON.stringify(shop),
        headers: { 'content-type': 'text/plain' },
      });
      await refused(413, 'POST', '/api/shop-integration', {
        key,
        body: { ...shop, name: 'x'.repeat(1024 * 1024 + 10) },
      });
      await refused(400, 'PUT', `/api/shop-integration/${id}`, { key, body: {} });
      await refused(400, 'PUT', `/api/shop-integration/${id}`, { key, body: { shopUrl: 7 } });
      await refused(400, 'GET', '/api/shop-integration/not-a-uuid', { key });
      await refused(400, 'PUT', '/api/shop-integration/1234/apikey', { key });
      await refused(404, 'GET', `/api/shop-integration/${missing}`, { key });
      await refused(404, 'PUT', `/api/shop-integration/${missing}`, { key, body: { name: 'x' } });
      await refused(404, 'PUT', `/api/shop-integration/${missing}/apikey`, { key });
      await refused(401, 'POST', '/api/shop-integration', { body: shop });
      await refused(401, 'POST', '/api/shop-integration', {
        key: `${key.slice(0, -4)}AAAA`,
        body: shop,
      });
      await refused(401, 'GET', `/api/shop-integration/${id}`, { key: 'x'.repeat(5000) });
      const proto = await refused(400, 'POST', '/api/shop-integration', {
        key,
        raw: '{"__proto__": {"admin": true}, "name": "x"}',
      });
      expect(proto.code).toBe('malformed_json');
      await refused(404, 'GET', '/api/nothing-here', { key });
    });
  });

  describe('system routes', () => {
    it('echoes a request id or makes one', async () => {
      const given = await call('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
      expect(given.headers.get('x-request-id')).toBe('abc-123');
      const made = await call('GET', '/healthz');
      expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const bad = await call('GET', '/healthz', { headers: { 'x-request-id': 'a b\tc' } });
      expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const problem = await call('GET', '/api/shop-integration', {
        headers: { 'x-request-id': 'err-1' },
      });
      expect(problem.headers.get('x-request-id')).toBe('err-1');
    });

    it('is ready when database, event store, file storage, projections, reactors, routing, Temporal and the worker answer', async () => {
      const r = await call('GET', '/readyz');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        status: 'ready',
        checks: {
          database: { ok: true },
          eventStore: { ok: true },
          projections: { ok: true },
          reactions: { ok: true },
          routing: { ok: true },
          storage: { ok: true },
          temporal: { ok: true },
          webhooks: { ok: true },
          worker: { ok: true },
        },
      });
      expect((await call('GET', '/livez')).body).toEqual({ status: 'ok' });
    });

    it('serves the OpenAPI document with every route of the slice, and the docs page', async () => {
      const r = await call('GET', '/openapi.json');
      expect(r.status).toBe(200);
      expect(Object.keys(r.body.paths)).toEqual(
        expect.arrayContaining([
          '/operator/labels',
          '/operator/shop-integration/{id}/permissions',
          '/api/shop-integration',
          '/api/shop-integration/{id}',
          '/api/shop-integration/{id}/apikey',
          '/livez',
          '/readyz',
        ]),
      );
      expect(r.body.paths['/api/shop-integration'].post.requestBody).toBeDefined();
      // every operation: a success response, and an example for it and for its body
      for (const [path, ops] of Object.entries<
        Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>
      >(r.body.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          const success = Object.entries(op.responses).find(([code]) => code.startsWith('2'));
          expect(success, `${method} ${path}`).toBeDefined();
          expect(JSON.stringify(success![1]), `${method} ${path} response`).toContain('"example"');
          if (op.requestBody)
            expect(JSON.stringify(op.requestBody), `${method} ${path} body`).toContain('"example"');
        }
      }
      expect(r.body.paths['/api/shop-integration'].post.responses['201']).toBeDefined();
      // every error as problem details, the print file as a PDF
      for (const [path, ops] of Object.entries<
        Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
      >(r.body.paths)) {
        for (const [method, op] of Object.entries(ops)) {
          for (const [code, answer] of Object.entries(op.responses)) {
            if (Number(code) >= 400)
              expect(Object.keys(answer.content ?? {}), `${method} ${path} ${code}`).toEqual([
                'application/problem+json',
              ]);
          }
        }
      }
      const printFile = r.body.paths['/api/orderitem/{id}/printfile'].get.responses['200'];
      expect(Object.keys(printFile.content)).toEqual(['application/pdf']);
      // what a schema can state, it states (named models read through their references)
      const inlined = (value: unknown, depth = 0): unknown => {
        if (Array.isArray(value)) return value.map((v) => inlined(v, depth));
        if (!value || typeof value !== 'object' || depth > 10) return value;
        const ref = (value as { $ref?: string }).$ref;
        if (ref) return inlined(r.body.components.schemas[ref.split('/').at(-1)!], depth + 1);
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inlined(v, depth)]));
      };
      const body = (path: string, method: string) =>
        JSON.stringify(
          inlined(r.body.paths[path][method].requestBody.content['application/json'].schema),
        );
      expect(body('/api/shop-integration/{id}', 'put')).toContain('"minProperties":1');
      const barcode = body('/api/orderitem/{id}/barcode', 'put');
      expect(barcode).toContain('^\\\\d{13}$');
      expect(barcode).toContain('"maxLength":2953');
      expect(body('/editor/{labelId}/login', 'post')).toContain('"pattern":"^[A-Za-z]{2,3}');
      const docs = await fetch(`${t.url}/docs/`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('swagger');
    });

    it('reports projection and reactor lag to the operator', async () => {
      const r = await call('GET', '/operator/projections', { key: t.operatorKey });
      expect(r.status).toBe(200);
      expect(r.body.map((p: { name: string }) => p.name)).toEqual([
        ...t.app.runner.names,
        ...t.app.reactions!.names,
      ]);
      for (const p of r.body) {
        expect(p).toMatchObject({ running: true, failing: null, parked: 0, parkedEvents: [] });
        expect(p.lagSeconds).toBeGreaterThanOrEqual(0);
      }
    });

    it('grants the offering permission through the operator API', async () => {
      const c = await call('POST', '/api/shop-integration', {
        key: labelA.adminApiKey,
        body: { name: 'P', shopSystem: 's', shopUrl: 'https://p.example' },
      });
      const p = await call('PUT', `/operator/shop-integration/${c.body.id}/permissions`, {
        key: t.operatorKey,
        body: { permissions: ['offering'] },
      });
      expect(p.status).toBe(200);
      expect(p.body.permissions).toEqual(['offering']);
      const g = await call('GET', `/api/shop-integration/${c.body.id}`, {
        key: labelA.adminApiKey,
      });
      expect(g.body.permissions).toEqual(['offering']);
      await refused(400, 'PUT', `/operator/shop-integration/${c.body.id}/permissions`, {
        key: t.operatorKey,
        body: { permissions: ['everything'] },
      });
      await refused(403, 'PUT', `/operator/shop-integration/${c.body.id}/permissions`, {
        key: labelA.adminApiKey,
        body: { permissions: ['offering'] },
      });
    });

    it('logs no key in the clear', () => {
      const all = t.logs.join('\n');
      expect(all.length).toBeGreaterThan(0);
      expect(all).not.toContain(t.operatorKey);
      expect(all).not.toMatch(/ep_(adm|int|ful)_[0-9a-f]{32}_[A-Za-z0-9_-]{43}/);
    });
  });
});

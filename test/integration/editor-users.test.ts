import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueEditorToken } from '../../src/app/editor-token.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  editorUser,
  importCatalog,
  type Label,
  newLabel,
  refused,
  settled,
} from '../helpers/fixtures.ts';

describe('editor projects and cart, partner users (admin)', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Label;
  let b: Label;
  let png: string;
  let jpeg: string;

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    a = await newLabel(call, t, 'A');
    b = await newLabel(call, t, 'B');
    await importCatalog(call, t, 'supplier-a', [
      config('MUG-1', {
        printAreas: [
          { code: 'FRONT', name: 'Front', widthMm: 80, heightMm: 50 },
          { code: 'BACK', name: 'Back', widthMm: 80, heightMm: 50 },
        ],
      }),
    ]);
    const img = sharp({ create: { width: 40, height: 30, channels: 3, background: '#c03020' } });
    png = `data:image/png;base64,${(await img.clone().png().toBuffer()).toString('base64')}`;
    jpeg = (await img.clone().jpeg().toBuffer()).toString('base64');
  });
  afterAll(async () => t?.stop());

  const design = () => ({
    areas: [
      {
        printArea: 'FRONT',
        layers: [
          { type: 'image', src: png, x: 5, y: 5, width: 40, height: 30, rotation: 0 },
          { type: 'text', text: 'Hello', x: 5, y: 40, fontSize: 12, color: '#1a2b3c' },
        ],
      },
    ],
  });
  const project = (extra: Record<string, unknown> = {}) => ({
    name: 'Team mug',
    sku: 'MUG-1',
    supplier: 'supplier-a',
    design: design(),
    ...extra,
  });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  async function newProject(token: string, body = project()) {
    const r = await call('POST', '/editor/projects', { headers: bearer(token), body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  }

  describe('projects', () => {
    it('creates, reads and updates a project of the logged-in user', async () => {
      const u = await editorUser(t, a.labelId, 'u-100');
      const p = await newProject(u.token);
      expect(p).toMatchObject({
        id: expect.any(String),
        userId: 'u-100',
        name: 'Team mug',
        sku: 'MUG-1',
        supplier: 'supplier-a',
      });
      expect(p.design).toEqual(design());
      const g = await call('GET', `/editor/projects/${p.id}`, { headers: bearer(u.token) });
      expect(g.status).toBe(200);
      expect(g.body).toEqual(p);
      const changed = project({
        name: 'Renamed',
        design: { areas: [{ printArea: 'BACK', layers: [] }] },
      });
      const put = await call('PUT', `/editor/projects/${p.id}`, {
        headers: bearer(u.token),
        body: changed,
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ id: p.id, name: 'Renamed', design: changed.design });
    });

    it("never shows one user another user's project, nor another label's", async () => {
      const owner = await editorUser(t, a.labelId, 'owner');
      const other = await editorUser(t, a.labelId, 'other');
      const foreign = await editorUser(t, b.labelId, 'owner');
      const p = await newProject(owner.token);
      for (const u of [other, foreign]) {
        await refused(t, call, 404, 'GET', `/editor/projects/${p.id}`, {
          headers: bearer(u.token),
        });
        await refused(t, call, 404, 'PUT', `/editor/projects/${p.id}`, {
          headers: bearer(u.token),
          body: project(),
        });
      }
      await refused(t, call, 404, 'GET', `/editor/projects/${randomUUID()}`, {
        headers: bearer(owner.token),
      });
      await refused(t, call, 400, 'GET', '/editor/projects/nope', { headers: bearer(owner.token) });
    });

    it('refuses designs that cannot be printed, recording nothing', async () => {
      const u = await editorUser(t, a.labelId, 'u-design');
      const post = (body: unknown) =>
        refused(t, call, 400, 'POST', '/editor/projects', { headers: bearer(u.token), body });
      const layer = (l: Record<string, unknown>) =>
        project({ design: { areas: [{ printArea: 'FRONT', layers: [l] }] } });
      const image = { type: 'image', src: png, x: 5, y: 5, width: 40, height: 30, rotation: 0 };
      expect((await post(project({ sku: 'NOPE' }))).detail).toContain('NOPE');
      expect(
        (await post(project({ design: { areas: [{ printArea: 'SLEEVE', layers: [] }] } }))).detail,
      ).toContain('SLEEVE');
      await post(
        project({
          design: {
            areas: [
              { printArea: 'FRONT', layers: [] },
              { printArea: 'FRONT', layers: [] },
            ],
          },
        }),
      );
      expect((await post(layer({ ...image, x: 90 }))).detail).toContain('wholly outside');
      expect((await post(layer({ ...image, x: -50 }))).detail).toContain('wholly outside');
      const truncated = `data:image/png;base64,${Buffer.from(png.split(',')[1]!, 'base64').subarray(0, 60).toString('base64')}`;
      // in plain words, naming the layer (and its field for machines)
      const cut = await post(layer({ ...image, src: truncated }));
      expect(cut.detail).toMatch(/^layer 1 on FRONT: the PNG cannot be read/);
      expect(cut.errors).toEqual([{ path: 'design.areas.0.layers.0.src', message: cut.detail }]);
      expect((await post(layer({ ...image, src: `data:image/png;base64,${jpeg}` }))).detail).toBe(
        'layer 1 on FRONT: the file is a JPEG, not the PNG its data URL declares',
      );
      await post(layer({ ...image, src: 'https://example.com/a.png' }));
      await post(layer({ ...image, src: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' }));
      await post(layer({ type: 'text', text: 'x', x: 1, y: 1, fontSize: 12, color: 'red' }));
      await post(layer({ type: 'shape', x: 1, y: 1 }));
      await post(project({ extra: 1 }));
      await post(project({ design: { areas: [] } }));
      await refused(t, call, 415, 'POST', '/editor/projects', {
        headers: { ...bearer(u.token), 'content-type': 'text/plain' },
        raw: 'x',
      });
    });

    it('needs a valid, unexpired token of an existing user', async () => {
      const u = await editorUser(t, a.labelId, 'u-token');
      await refused(t, call, 401, 'POST', '/editor/projects', { body: project() });
      await refused(t, call, 401, 'POST', '/editor/projects', {
        headers: { authorization: `Basic ${u.token}` },
        body: project(),
      });
      await refused(t, call, 401, 'POST', '/editor/projects', {
        headers: bearer(`${u.token}x`),
        body: project(),
      });
      const forged = issueEditorToken('another-secret-another-secret-123', a.labelId, u.userRef);
      await refused(t, call, 401, 'POST', '/editor/projects', {
        headers: bearer(forged),
        body: project(),
      });
      const expired = issueEditorToken(
        t.editorTokenSecret,
        a.labelId,
        u.userRef,
        new Date(Date.now() - 9 * 3600_000),
      );
      await refused(t, call, 401, 'POST', '/editor/projects', {
        headers: bearer(expired),
        body: project(),
      });
      const wrongLabel = issueEditorToken(t.editorTokenSecret, b.labelId, u.userRef);
      await refused(t, call, 401, 'POST', '/editor/projects', {
        headers: bearer(wrongLabel),
        body: project(),
      });
    });
  });

  describe('cart', () => {
    it('adds a saved project; the admin deletes the item', async () => {
      const u = await editorUser(t, a.labelId, 'u-cart');
      const p = await newProject(u.token);
      const c = await call('POST', '/editor/cart', {
        headers: bearer(u.token),
        body: { projectId: p.id, quantity: 10 },
      });
      expect(c.status).toBe(201);
      expect(c.body.id).toMatch(/^[0-9a-f-]{36}$/);
      await refused(t, call, 404, 'DELETE', `/api/shoppingcartitem/${c.body.id}`, {
        key: b.adminApiKey,
      });
      const d = await call('DELETE', `/api/shoppingcartitem/${c.body.id}`, { key: a.adminApiKey });
      expect(d.body).toEqual({ id: c.body.id, deleted: true });
      await refused(t, call, 404, 'DELETE', `/api/shoppingcartitem/${c.body.id}`, {
        key: a.adminApiKey,
      });
      await refused(t, call, 400, 'DELETE', '/api/shoppingcartitem/x', { key: a.adminApiKey });
    });

    it("refuses another user's project, and bad quantities", async () => {
      const u = await editorUser(t, a.labelId, 'u-cart2');
      const other = await editorUser(t, a.labelId, 'u-cart3');
      const p = await newProject(other.token);
      const cart = (body: unknown) =>
        refused(t, call, 400, 'POST', '/editor/cart', { headers: bearer(u.token), body });
      expect((await cart({ projectId: p.id, quantity: 1 })).code).toBe('unknown_project');
      await cart({ projectId: randomUUID(), quantity: 1 });
      await cart({ projectId: p.id, quantity: 0 });
      await cart({ projectId: p.id, quantity: 1.5 });
      await cart({ projectId: 'nope', quantity: 1 });
    });
  });

  describe('partner users and their products (admin)', () => {
    it("lists a user's products, paginated; 400 without userId, 404 for unknown users and other labels", async () => {
      const u = await editorUser(t, a.labelId, 'lister');
      const p1 = await newProject(u.token, project({ name: 'one' }));
      const p2 = await newProject(u.token, project({ name: 'two' }));
      const r = await call('GET', '/api/partner/user/products?userId=lister', {
        key: a.adminApiKey,
      });
      expect(r.status).toBe(200);
      expect(r.body.map((x: { id: string }) => x.id)).toEqual([p1.id, p2.id]);
      expect(Object.keys(r.body[0]).sort()).toEqual([
        'createdAt',
        'id',
        'name',
        'sku',
        'supplier',
        'updatedAt',
        'userId',
      ]);
      const page = await call('GET', '/api/partner/user/products?userId=lister&limit=1&offset=1', {
        key: a.adminApiKey,
      });
      expect(page.body.map((x: { id: string }) => x.id)).toEqual([p2.id]);
      await refused(t, call, 400, 'GET', '/api/partner/user/products', { key: a.adminApiKey });
      await refused(t, call, 400, 'GET', '/api/partner/user/products?userId=lister&limit=101', {
        key: a.adminApiKey,
      });
      await refused(t, call, 404, 'GET', '/api/partner/user/products?userId=ghost', {
        key: a.adminApiKey,
      });
      await refused(t, call, 404, 'GET', '/api/partner/user/products?userId=lister', {
        key: b.adminApiKey,
      });
    });

    it('deletes a project; the user no longer sees it', async () => {
      const u = await editorUser(t, a.labelId, 'u-del-project');
      const p = await newProject(u.token);
      await refused(t, call, 404, 'DELETE', `/api/product/${p.id}`, { key: b.adminApiKey });
      const d = await call('DELETE', `/api/product/${p.id}`, { key: a.adminApiKey });
      expect(d.body).toEqual({ id: p.id, deleted: true });
      await refused(t, call, 404, 'GET', `/editor/projects/${p.id}`, { headers: bearer(u.token) });
      await refused(t, call, 404, 'DELETE', `/api/product/${p.id}`, { key: a.adminApiKey });
    });

    it('re-keys a user: projects follow, the token stays valid, a taken id is 409', async () => {
      const u = await editorUser(t, a.labelId, 'old-id');
      await editorUser(t, a.labelId, 'taken-id');
      const p = await newProject(u.token);
      await refused(t, call, 409, 'PUT', '/api/partner/user', {
        key: a.adminApiKey,
        body: { userId: 'old-id', newUserId: 'taken-id' },
      });
      await refused(t, call, 404, 'PUT', '/api/partner/user', {
        key: a.adminApiKey,
        body: { userId: 'ghost', newUserId: 'x' },
      });
      await refused(t, call, 404, 'PUT', '/api/partner/user', {
        key: b.adminApiKey,
        body: { userId: 'old-id', newUserId: 'x' },
      });
      await refused(t, call, 400, 'PUT', '/api/partner/user', {
        key: a.adminApiKey,
        body: { userId: 'old-id' },
      });
      await refused(t, call, 400, 'PUT', '/api/partner/user', {
        key: a.adminApiKey,
        body: { userId: '', newUserId: 'x' },
      });
      const r = await call('PUT', '/api/partner/user', {
        key: a.adminApiKey,
        body: { userId: 'old-id', newUserId: 'new-id' },
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ userId: 'new-id', projects: 1 });
      await settled(t);
      const list = await call('GET', '/api/partner/user/products?userId=new-id', {
        key: a.adminApiKey,
      });
      expect(list.body.map((x: { id: string; userId: string }) => [x.id, x.userId])).toEqual([
        [p.id, 'new-id'],
      ]);
      await refused(t, call, 404, 'GET', '/api/partner/user/products?userId=old-id', {
        key: a.adminApiKey,
      });
      expect(
        (await call('GET', `/editor/projects/${p.id}`, { headers: bearer(u.token) })).body.userId,
      ).toBe('new-id');
      // the old id is free again
      const again = await editorUser(t, a.labelId, 'old-id');
      expect(again.userRef).not.toBe(u.userRef);
    });

    it('deletes a user: personal data unreadable in read models and in the history, projects and cart gone', async () => {
      const profile = { firstName: 'Ada', lastName: 'Lovelace', userName: 'ada@example.com' };
      const u = await editorUser(t, a.labelId, 'to-delete', profile);
      const p = await newProject(u.token);
      await call('POST', '/editor/cart', {
        headers: bearer(u.token),
        body: { projectId: p.id, quantity: 2 },
      });
      await settled(t);
      const before = await t.app.db.pool.query(
        'SELECT first_name, user_name FROM rm_partner_users WHERE user_ref = $1',
        [u.userRef],
      );
      expect(before.rows[0]).toEqual({ first_name: 'Ada', user_name: 'ada@example.com' });
      const inClear = async () =>
        (
          await t.app.db.pool.query(
            "SELECT count(*)::int AS n FROM es_events WHERE data::text ~ '(Ada|Lovelace|ada@example)'",
          )
        ).rows[0].n;
      expect(await inClear()).toBe(0);

      await refused(t, call, 404, 'DELETE', '/api/partner/user?userId=to-delete', {
        key: b.adminApiKey,
      });
      await refused(t, call, 400, 'DELETE', '/api/partner/user', { key: a.adminApiKey });
      const d = await call('DELETE', '/api/partner/user?userId=to-delete', { key: a.adminApiKey });
      expect(d.body).toEqual({ userId: 'to-delete', deleted: true });
      await refused(t, call, 404, 'DELETE', '/api/partner/user?userId=to-delete', {
        key: a.adminApiKey,
      });
      await refused(t, call, 404, 'GET', '/api/partner/user/products?userId=to-delete', {
        key: a.adminApiKey,
      });
      await refused(t, call, 401, 'GET', `/editor/projects/${p.id}`, { headers: bearer(u.token) });
      const pool = t.app.db.pool;
      for (const table of ['rm_partner_users', 'rm_projects', 'rm_cart_items']) {
        expect(
          (
            await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE user_ref = $1`, [
              u.userRef,
            ])
          ).rows[0].n,
        ).toBe(0);
      }
      expect(
        (
          await pool.query('SELECT count(*)::int AS n FROM encryption_keys WHERE owner_id = $1', [
            u.userRef,
          ])
        ).rows[0].n,
      ).toBe(0);
      // replaying the history cannot bring the name back: the key is gone
      await t.app.runner.reset('partner-users');
      await settled(t);
      expect(
        (
          await pool.query(
            "SELECT count(*)::int AS n FROM rm_partner_users WHERE first_name = 'Ada'",
          )
        ).rows[0].n,
      ).toBe(0);
      expect(await inClear()).toBe(0);
    });
  });

  describe('order item barcodes', () => {
    it('validates the value for its format before anything else', async () => {
      const key = a.adminApiKey;
      const path = `/api/orderitem/${randomUUID()}/barcode`;
      const wrongDigit = await refused(t, call, 400, 'PUT', path, {
        key,
        body: { format: 'ean13', value: '4006381333932' },
      });
      expect(JSON.stringify(wrongDigit.errors)).toContain('check digit');
      await refused(t, call, 400, 'PUT', path, {
        key,
        body: { format: 'ean13', value: '400638133393' },
      });
      await refused(t, call, 400, 'PUT', path, {
        key,
        body: { format: 'code128', value: 'naïve' },
      });
      await refused(t, call, 400, 'PUT', path, { key, body: { format: 'pdf417', value: 'x' } });
      await refused(t, call, 400, 'PUT', '/api/orderitem/1/barcode', {
        key,
        body: { format: 'ean13', value: '4006381333931' },
      });
      // a valid value for an order item that does not exist (none do before sale notifications)
      await refused(t, call, 404, 'PUT', path, {
        key,
        body: { format: 'ean13', value: '4006381333931' },
      });
      await refused(t, call, 403, 'PUT', path, {
        key: a.fulfillmentApiKey,
        body: { format: 'ean13', value: '4006381333931' },
      });
    });
  });
});

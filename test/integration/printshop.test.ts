import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importActivities } from '../../src/activities/imports.ts';
import { requestImport } from '../../src/app/imports.ts';
import { configurationSchema } from '../../src/domain/product/configuration.ts';
import type { EventStore } from '../../src/eventstore/port.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  importDone,
  type Label,
  newIntegration,
  newLabel,
  refused,
  settled,
} from '../helpers/fixtures.ts';

describe('printshop SKU maintenance (/v1/api/printshop/sku)', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Label;
  let psk: string;
  let shop: { id: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    a = await newLabel(call, t, 'A');
    shop = await newIntegration(call, t, a.adminApiKey, true);
    const k = await call('POST', '/operator/printshop-keys', {
      key: t.operatorKey,
      body: { name: 'Print partner' },
    });
    expect(k.status).toBe(201);
    psk = k.body.apiKey;
    expect(psk).toMatch(/^ep_psk_/);
  });
  afterAll(async () => t?.stop());

  const data = (sku: string) =>
    call('GET', `/api/offering/sku/data?supplier=printshop&sku=${encodeURIComponent(sku)}`, {
      key: shop.apiKey,
    });

  async function addGroups(groups: { groupName: string; skus: string[] }[]) {
    const r = await call('POST', '/v1/api/printshop/sku', { key: psk, body: groups });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const done = await importDone(call, `/v1/api/printshop/sku/imports/${r.body.importId}`, psk);
    await settled(t);
    return { accepted: r.body, done };
  }

  it('adds SKU groups asynchronously, with progress, under the group slug', async () => {
    const { accepted, done } = await addGroups([
      { groupName: 'Mug Classic (Ø 8 cm)!', skus: ['MUG-CL-WHITE', 'MUG-CL-BLACK'] },
      { groupName: 'Tote bag', skus: ['TOTE-1'] },
    ]);
    expect(accepted).toMatchObject({ groups: 2, skus: 3, importId: expect.any(String) });
    expect(done).toMatchObject({
      status: 'completed',
      total: 3,
      groups: 2,
      processed: 3,
      created: 3,
      skipped: [],
    });
    const r = await data('MUG-CL-BLACK');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      sku: 'MUG-CL-BLACK',
      skuGroup: 'mug-classic-o-8-cm',
      supplier: 'printshop',
      published: true,
    });
  });

  it('refuses empty groups, duplicates in the body and SKUs already on the platform, recording nothing', async () => {
    const post = (body: unknown) =>
      refused(t, call, 400, 'POST', '/v1/api/printshop/sku', { key: psk, body });
    await post([{ groupName: 'Empty', skus: [] }]);
    const dup = await post([
      { groupName: 'G', skus: ['NEW-1'] },
      { groupName: 'H', skus: ['new-1'] },
    ]);
    expect(JSON.stringify(dup.errors)).toContain('appears twice');
    const exists = await post([{ groupName: 'G', skus: ['NEW-2', 'TOTE-1'] }]);
    expect(exists.detail).toContain('TOTE-1');
    await post([]);
    await post([{ groupName: '!!!', skus: ['NEW-3'] }]);
    await post([{ groupName: 'G', skus: ['HAS SPACE'] }]);
    await post([{ groupName: 'G', skus: ['NEW-4'], extra: 1 }]);
    await post({ groupName: 'G', skus: ['NEW-5'] });
  });

  it('stages a rename without changing offerings, then publishes it', async () => {
    await addGroups([{ groupName: 'Cap', skus: ['CAP-OLD'] }]);
    const staged = await call('PUT', '/v1/api/printshop/sku', {
      key: psk,
      body: { oldSku: 'CAP-OLD', newSku: 'CAP-NEW', publish: false },
    });
    expect(staged.status).toBe(200);
    expect(staged.body).toEqual({ oldSku: 'CAP-OLD', newSku: 'CAP-NEW', published: false });
    expect((await data('CAP-OLD')).body.renamedTo).toBeUndefined();
    expect((await data('CAP-NEW')).status).toBe(404);

    const published = await call('PUT', '/v1/api/printshop/sku', {
      key: psk,
      body: { oldSku: 'CAP-OLD', newSku: 'CAP-NEW', publish: true },
    });
    expect(published.body).toEqual({ oldSku: 'CAP-OLD', newSku: 'CAP-NEW', published: true });
    const old = await data('CAP-OLD');
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({ sku: 'CAP-OLD', renamedTo: 'CAP-NEW', published: false });
    expect((await data('CAP-NEW')).body).toMatchObject({
      sku: 'CAP-NEW',
      skuGroup: 'cap',
      published: true,
    });
    const search = await call('GET', '/api/offering/sku?supplier=printshop&sku=cap-', {
      key: shop.apiKey,
    });
    expect(search.body.map((x: { sku: string }) => x.sku)).toEqual(['CAP-NEW']);
  });

  it('answers 404 for an unknown old SKU, 409 when the new SKU exists, 400 for the same SKU', async () => {
    const put = (status: number, body: unknown) =>
      refused(t, call, status, 'PUT', '/v1/api/printshop/sku', { key: psk, body });
    await put(404, { oldSku: 'NOPE', newSku: 'NOPE-2', publish: true });
    await put(409, { oldSku: 'MUG-CL-WHITE', newSku: 'mug-cl-black', publish: true });
    await put(409, { oldSku: 'MUG-CL-WHITE', newSku: 'MUG-CL-BLACK', publish: false });
    await put(400, { oldSku: 'MUG-CL-WHITE', newSku: 'mug-cl-white', publish: true });
    await put(404, { oldSku: 'CAP-OLD', newSku: 'CAP-NEWER', publish: true }); // renamed away already
    await put(400, { oldSku: 'MUG-CL-WHITE', newSku: 'X', publish: 'yes' });
    await put(400, { oldSku: 'MUG-CL-WHITE', newSku: 'X' });
  });

  it('opens only with the printshop key', async () => {
    const body = { oldSku: 'MUG-CL-WHITE', newSku: 'MUG-2', publish: false };
    await refused(t, call, 403, 'PUT', '/v1/api/printshop/sku', { key: a.adminApiKey, body });
    await refused(t, call, 403, 'POST', '/v1/api/printshop/sku', {
      key: a.adminApiKey,
      body: [{ groupName: 'G', skus: ['Q-1'] }],
    });
    await refused(t, call, 403, 'PUT', '/v1/api/printshop/sku', { key: shop.apiKey, body });
    await refused(t, call, 403, 'PUT', '/v1/api/printshop/sku', { key: a.fulfillmentApiKey, body });
    await refused(t, call, 403, 'PUT', '/v1/api/printshop/sku', { key: t.operatorKey, body });
    await refused(t, call, 401, 'PUT', '/v1/api/printshop/sku', { body });
    await refused(t, call, 404, 'GET', `/v1/api/printshop/sku/imports/${randomUUID()}`, {
      key: psk,
    });
    await refused(t, call, 400, 'GET', '/v1/api/printshop/sku/imports/123', { key: psk });
  });

  it('resumes an import cut off mid-chunk without duplicating or losing SKUs', async () => {
    const items = Array.from({ length: 300 }, (_, n) => ({
      sku: `RES-${String(n).padStart(3, '0')}`,
      configuration: configurationSchema.parse({ skuGroup: 'resume' }),
    }));
    const { importId } = await requestImport(
      t.app.context,
      { kind: 'printshop-skus', supplier: 'printshop', items, groups: 1 },
      { actor: 'test' },
    );
    // the "crash": the event store dies after 40 product appends of the first chunk
    let left = 40;
    const dying: EventStore = Object.create(t.app.store, {
      append: {
        value: (...args: Parameters<EventStore['append']>) => {
          if (args[0].startsWith('Product-') && left-- <= 0)
            return Promise.reject(new Error('crash'));
          return t.app.store.append(...args);
        },
      },
    });
    await expect(importActivities(dying).applyImportChunk(importId, 0)).rejects.toThrow('crash');
    // a new worker picks the workflow up: describe, apply every chunk, complete
    const fresh = importActivities(t.app.store);
    const { chunkCount, applied } = await fresh.describeImport(importId);
    expect(applied).toEqual([]);
    for (let c = 0; c < chunkCount; c++) await fresh.applyImportChunk(importId, c);
    // an activity retried after it had finished changes nothing
    await fresh.applyImportChunk(importId, 0);
    expect(await fresh.completeImport(importId)).toEqual({ created: 300, skipped: 0 });
    const rows = await t.app.db.pool.query(
      "SELECT stream_id, count(*)::int AS n FROM es_events WHERE stream_id LIKE 'Product-printshop-res-%' GROUP BY stream_id",
    );
    expect(rows.rows).toHaveLength(300);
    expect(rows.rows.every((r: { n: number }) => r.n === 1)).toBe(true);
    const chunkEvents = await t.app.db.pool.query(
      "SELECT count(*)::int AS n FROM es_events WHERE stream_id = $1 AND type = 'ImportChunkApplied'",
      [`Import-${importId}`],
    );
    expect(chunkEvents.rows[0].n).toBe(chunkCount);
  });

  it('skips, and reports, a SKU that appeared after the request was accepted', async () => {
    const items = ['RACE-1', 'RACE-2'].map((sku) => ({
      sku,
      configuration: configurationSchema.parse({}),
    }));
    const first = await requestImport(
      t.app.context,
      { kind: 'printshop-skus', supplier: 'printshop', items: items.slice(0, 1), groups: 1 },
      { actor: 'test' },
    );
    const second = await requestImport(
      t.app.context,
      { kind: 'printshop-skus', supplier: 'printshop', items, groups: 1 },
      { actor: 'test' },
    );
    const acts = importActivities(t.app.store);
    await acts.applyImportChunk(first.importId, 0);
    expect(await acts.applyImportChunk(second.importId, 0)).toEqual({ created: 1, skipped: 1 });
    await acts.completeImport(second.importId);
    await settled(t);
    const view = await call('GET', `/v1/api/printshop/sku/imports/${second.importId}`, {
      key: psk,
    });
    expect(view.body).toMatchObject({
      status: 'completed',
      created: 1,
      skipped: [{ sku: 'RACE-1', reason: 'already on the platform' }],
    });
  });
});

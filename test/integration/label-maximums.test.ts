import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerPartnerUser } from '../../src/app/partner-users.ts';
import { LABEL_MAXIMUMS } from '../../src/domain/shared/maximums.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Label, newLabel } from '../helpers/fixtures.ts';
import { accessOf, type Shop, setUpShop, textDesign } from '../helpers/orders.ts';

/**
 * A label's collections have maximums, held also when the label's own requests race
 * for the last places: the race ends with exactly the maximum, the rest 409
 * limit_reached, and another label is not affected.
 */
describe("a label's collection maximums", () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let label: Label;
  let other: Label;
  const facility = (n: number) => ({
    name: `Plant ${n}`,
    country: 'DE',
    timezone: 'Europe/Berlin',
    capabilities: { printMethods: ['digital'] },
    capacity: { itemsPerDay: 100 },
  });
  const register = (l: Label, n: number) =>
    call('POST', '/api/facilities', { key: l.adminApiKey, body: facility(n) });

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    label = await newLabel(call, t, 'Many plants');
    other = await newLabel(call, t, 'One plant');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('registers facilities up to the maximum, and of ten racing for the last two takes exactly two', async () => {
    const max = LABEL_MAXIMUMS.facilities;
    for (let n = 0; n < max - 2; n++) {
      const r = await register(label, n);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const raced = await Promise.all(Array.from({ length: 10 }, (_, i) => register(label, 100 + i)));
    expect(raced.filter((r) => r.status === 201)).toHaveLength(2);
    const refused = raced.filter((r) => r.status !== 201);
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('limit_reached');
      expect(r.body.detail).toBe(
        `a label holds at most ${max} facilities, and this one holds ${max}`,
      );
    }
    const listed = await call('GET', '/api/facilities', { key: label.adminApiKey });
    expect(listed.body).toHaveLength(max);
    // a refused registration left nothing behind: no event of it
    const events = await t.app.db.pool.query(
      "SELECT count(*)::int AS n FROM es_events WHERE type = 'FacilityRegistered' AND data->>'labelId' = $1",
      [label.labelId],
    );
    expect(events.rows[0].n).toBe(max);
    // another label registers as ever
    expect((await register(other, 0)).status).toBe(201);
  }, 180_000);
});

/**
 * The collections counted from their read models, with the deployment's setting
 * (`LABEL_MAXIMUMS`) turned down so a test reaches them: data sets, price rows, a user's
 * projects, editor users. Each refusal is 409 limit_reached and records nothing.
 */
describe('maximums set by the deployment', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let b: Shop;

  beforeAll(async () => {
    t = await startTestApp({
      LABEL_MAXIMUMS: 'datasets=2,priceRows=3,editorUsers=2,projectsPerUser=3',
    });
    call = client(t.url);
    a = await setUpShop(call, accessOf(t), 2);
    b = await setUpShop(call, accessOf(t), 0);
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
  });

  const upload = (shop: Shop, n: number) =>
    fetch(`${t.url}/api/datasets`, {
      method: 'POST',
      headers: { 'x-api-key': shop.adminKey, 'content-type': 'text/csv' },
      body: `name\nrow ${n}\n`,
    }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { code?: string; detail?: string; datasetId?: string },
    }));
  const events = async (type: string, labelId: string) =>
    (
      await t.app.db.pool.query(
        'SELECT count(*)::int AS n FROM es_events WHERE type = $1 AND data->>$2 = $3',
        [type, 'labelId', labelId],
      )
    ).rows[0].n;

  it('keeps two data sets of five racing, takes one again once one is erased', async () => {
    const raced = await Promise.all([0, 1, 2, 3, 4].map((n) => upload(a, n)));
    const taken = raced.filter((r) => r.status === 201);
    expect(taken, JSON.stringify(raced)).toHaveLength(2);
    for (const r of raced.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('limit_reached');
      expect(r.body.detail).toMatch(/^a label holds at most 2 data sets, and this one holds 2$/);
    }
    expect(await events('DatasetUploaded', a.labelId)).toBe(2);
    // another label uploads as ever
    expect((await upload(b, 0)).status).toBe(201);
    const erased = await call('DELETE', `/api/datasets/${taken[0]!.body.datasetId}`, {
      key: a.adminKey,
    });
    expect(erased.status).toBe(200);
    expect((await upload(a, 5)).status).toBe(201);
  }, 120_000);

  it('counts price rows an import adds, not those it replaces', async () => {
    const price = (minQuantity: number, unitPrice: string) => ({
      sku: a.sku,
      supplier: 'supplier-a',
      minQuantity,
      unitPrice,
    });
    const imported = (prices: ReturnType<typeof price>[]) =>
      call('POST', '/api/price/import', {
        key: a.adminKey,
        body: { currency: 'EUR', prices },
      });
    expect((await imported([price(1, '4.00'), price(10, '3.50')])).status).toBe(201);
    // one replaced, one added: three rows
    expect((await imported([price(1, '4.10'), price(100, '3.00')])).status).toBe(201);
    const over = await imported([price(1, '4.20'), price(1000, '2.50')]);
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('limit_reached');
    expect(over.body.detail).toBe('a label holds at most 3 price rows, and this one holds 3');
    expect(await events('PricesImported', a.labelId)).toBe(2);
    // replacing only is no more rows
    expect((await imported([price(1, '4.30')])).status).toBe(201);
  }, 60_000);

  it("refuses a user's project past the maximum, and an editor user past the label's", async () => {
    const project = () =>
      call('POST', '/editor/projects', {
        headers: { authorization: `Bearer ${a.token}` },
        body: { name: 'One more', sku: a.sku, supplier: 'supplier-a', design: textDesign('x') },
      });
    // setUpShop saved two (or, had a save answered late and been tried again, three)
    let over = await project();
    for (let i = 0; i < 3 && over.status === 201; i++) over = await project();
    expect(over.status, JSON.stringify(over.body)).toBe(409);
    expect(over.body.detail).toBe(
      'an editor user holds at most 3 projects per editor user, and this one holds 3',
    );
    const held = await t.app.db.pool.query(
      "SELECT count(*)::int AS n FROM es_events WHERE type = 'ProjectCreated' AND data->>'labelId' = $1",
      [a.labelId],
    );
    expect(held.rows[0].n).toBe(3);

    const ctx = {
      ...accessOf(t),
      readModels: t.app.context.readModels,
      maximums: t.config.labelMaximums,
    };
    // setUpShop registered the label's first user
    await registerPartnerUser(ctx, a.labelId, 'second', undefined, { actor: 'test' });
    await expect(
      registerPartnerUser(ctx, a.labelId, 'third', undefined, { actor: 'test' }),
    ).rejects.toMatchObject({ code: 'limit_reached' });
    // a user the label has already is no more users
    await registerPartnerUser(ctx, a.labelId, 'second', undefined, { actor: 'test' });
  }, 60_000);
});

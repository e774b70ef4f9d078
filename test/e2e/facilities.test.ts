import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  EVERY_DAY,
  raceSales,
  registerFacility,
  saveProject,
  today,
} from '../helpers/facilities.ts';
import { config, editorUser, importCatalog, opsLogin, settled } from '../helpers/fixtures.ts';
import { until } from '../helpers/orders.ts';
import { pdfText } from '../helpers/pdf.ts';
import { parseMessage, startReceiver } from '../helpers/webhook-receiver.ts';

type Item = {
  orderItemId: string;
  itemId: string;
  routing: string;
  facilityId?: string;
  routedDay?: string;
  stage?: string;
};

/**
 * Where orders go, over real HTTP against the real PostgreSQL and Temporal: three
 * facilities (Berlin digital, Kraków screen print and digital, Lisbon embroidery at 5 a
 * day), orders routed by print method, by the recipient's country and by capacity; a
 * paused facility's items moved off unless on the press; each facility's key confined to
 * its own items; a split order shipped from two facilities with a slip each; addresses
 * checked per country and erased with the customer.
 */
describe('recipients, facilities and routing', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let admin: string;
  let labelKey: string;
  let shopKey: string;
  let editorToken: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const projects: Record<'digital' | 'screen' | 'embroidery', string> = {
    digital: '',
    screen: '',
    embroidery: '',
  };
  const facilities: Record<'berlin' | 'krakow' | 'lisbon', { id: string; key: string }> = {
    berlin: { id: '', key: '' },
    krakow: { id: '', key: '' },
    lisbon: { id: '', key: '' },
  };
  const toBerlin = {
    name: 'Erika Mustermann',
    line1: 'Hauptstraße 5',
    city: 'Berlin',
    postalCode: '10115',
    country: 'DE',
  };
  const toKrakow = {
    name: 'Jan Kowalski',
    line1: 'ul. Floriańska 1',
    city: 'Kraków',
    postalCode: '31-019',
    country: 'PL',
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({
      BATCHING_SWEEP_MS: '300',
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_ALLOW_HTTP: 'on',
    });
    call = client(t.url);
    // the recipients' words never reach a log or an event in the clear (checked at stop)
    for (const word of [
      'Erika Mustermann',
      'Hauptstraße',
      'Jan Kowalski',
      'Floriańska',
      'Alles Gute',
    ])
      t.secrets.add(word);
    const label = await call('POST', '/operator/labels', {
      key: t.operatorKey,
      body: { name: 'Promo Europe' },
    });
    expect(label.status).toBe(201);
    admin = label.body.adminApiKey;
    labelKey = label.body.fulfillmentApiKey;
    const tag = randomUUID().slice(0, 6);
    await importCatalog(call, t, 'supplier-a', [
      config(`DIG-${tag}`),
      config(`SCR-${tag}`, { printMethod: 'screen', printColors: 1 }),
      config(`EMB-${tag}`, { printMethod: 'embroidery' }),
    ]);
    const shop = await call('POST', '/api/shop-integration', {
      key: admin,
      body: { name: 'Shop', shopSystem: 'test', shopUrl: 'https://shop.example' },
    });
    shopKey = shop.body.apiKey;
    const hook = await call('PUT', `/api/shop-integration/${shop.body.id}/webhook`, {
      key: admin,
      body: { url: receiver.url() },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    const { token } = await editorUser(t, label.body.labelId, `u-${randomUUID()}`);
    editorToken = token;
    for (const [method, prefix] of [
      ['digital', 'DIG'],
      ['screen', 'SCR'],
      ['embroidery', 'EMB'],
    ] as const)
      projects[method] = await saveProject(call, token, `${prefix}-${tag}`, method);
    const register = (body: Record<string, unknown>) => registerFacility(call, admin, body);
    facilities.berlin = await register({
      name: 'Berlin',
      country: 'DE',
      timezone: 'Europe/Berlin',
      capabilities: { printMethods: ['digital'] },
      capacity: { itemsPerDay: 100 },
      workingDays: EVERY_DAY,
      // closed today and the next two days: its items take later days, and ship later
      holidays: [0, 1, 2].map((n) => today('Europe/Berlin', n)),
    });
    facilities.krakow = await register({
      name: 'Kraków',
      country: 'PL',
      timezone: 'Europe/Warsaw',
      capabilities: { printMethods: ['screen', 'digital'] },
      capacity: { itemsPerDay: 100 },
      workingDays: EVERY_DAY,
    });
    facilities.lisbon = await register({
      name: 'Lisbon',
      country: 'PT',
      timezone: 'Europe/Lisbon',
      capabilities: { printMethods: ['embroidery'] },
      capacity: { itemsPerDay: 5 },
      workingDays: EVERY_DAY,
    });
  }, 240_000);
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  const order = async (
    items: (keyof typeof projects)[],
    shipTo: Record<string, unknown> | undefined,
    extra: Record<string, unknown> = {},
  ) => {
    const orderId = `FAC-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shopKey,
      body: {
        orderId,
        items: items.map((m, n) => ({ itemId: `${m}-${n}`, projectId: projects[m], quantity: 1 })),
        ...(shipTo ? { shipTo } : {}),
        ...extra,
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return orderId;
  };
  const view = async (orderId: string) =>
    (await call('GET', `/api/orders/${orderId}`, { key: admin })).body as {
      status: string;
      stage?: string;
      shipTo?: Record<string, string>;
      customerErased: boolean;
      items: Item[];
      shipments: { facilityId?: string; orderItemIds: string[] }[];
    };
  /** the order once every item is routed (or unroutable) */
  const routed = (orderId: string, pending = 0) =>
    until(
      `order ${orderId} routed`,
      async () => {
        const v = await view(orderId);
        return v.items.filter((i) => i.routing === 'pending').length === pending ? v : undefined;
      },
      120_000,
    );
  const byItem = (v: { items: Item[] }, prefix: string) =>
    v.items.filter((i) => i.itemId.startsWith(prefix));
  const history = async (orderId: string) =>
    (await call('GET', `/api/orders/${orderId}/history`, { key: admin })).body as {
      type: string;
      data: Record<string, unknown>;
      actor?: string;
    }[];
  const opsOrderText = async (orderId: string) => {
    const cookie = await opsLogin(t.url, t.operatorKey);
    const page = await fetch(`${t.url}/ops/orders?q=${orderId}`, { headers: { cookie } });
    const link = /href="(\/ops\/labels\/[^"]+\/orders\/[^"]+)"/.exec(await page.text())?.[1];
    expect(link).toBeDefined();
    const r = await fetch(`${t.url}${link}`, { headers: { cookie } });
    return (await r.text())
      .replace(/<[^>]+>/g, '')
      .replace(/&[a-z#0-9]+;/g, (e) =>
        e === '&amp;' ? '&' : e === '&#39;' ? "'" : e === '&quot;' ? '"' : e,
      );
  };

  /** a PDF's text, fetched with a key */
  const slipText = async (orderId: string, key: string) => {
    const r = await fetch(`${t.url}/api/orders/${orderId}/packing-slip`, {
      headers: { 'x-api-key': key },
    });
    expect(r.status).toBe(200);
    return pdfText(new Uint8Array(await r.arrayBuffer()));
  };

  let split: string;

  it('routes by print method and by the recipient’s country, every decision’s reason on the record', async () => {
    split = await order(['digital', 'screen', 'embroidery'], toBerlin);
    const v = await routed(split);
    expect(byItem(v, 'digital')[0]!.facilityId).toBe(facilities.berlin.id);
    expect(byItem(v, 'screen')[0]!.facilityId).toBe(facilities.krakow.id);
    expect(byItem(v, 'embroidery')[0]!.facilityId).toBe(facilities.lisbon.id);
    expect(byItem(v, 'embroidery')[0]!.routedDay).toBe(today('Europe/Lisbon'));
    expect(byItem(v, 'digital')[0]!.routedDay).toBe(today('Europe/Berlin', 3));
    // the label's 72 hours to ship, counted on Berlin's working days: three more days
    const { receivedAt, shipBy } = (await call('GET', `/api/orders/${split}`, { key: admin }))
      .body as { receivedAt: string; shipBy: string };
    expect((Date.parse(shipBy) - Date.parse(receivedAt)) / 86_400_000).toBeCloseTo(6, 1);
    // the same digital item to Poland goes to Kraków, which prints digital too
    const polish = await order(['digital'], toKrakow);
    expect((await routed(polish)).items[0]!.facilityId).toBe(facilities.krakow.id);

    const events = (await history(split)).filter((e) => e.type === 'ItemRouted');
    expect(events).toHaveLength(3);
    const reasons = Object.fromEntries(
      events.map((e) => {
        const d = e.data as {
          orderItemId: string;
          reason: { rule: string; candidates: { name: string; verdict: string }[] };
        };
        const item = v.items.find((i) => i.orderItemId === d.orderItemId)!;
        return [
          item.itemId.split('-')[0],
          [d.reason.rule, d.reason.candidates.map((c) => `${c.name}:${c.verdict}`).join(' ')],
        ];
      }),
    );
    expect(reasons).toEqual({
      digital: ['recipient_country', 'Berlin:chosen Kraków:other_country Lisbon:cannot_print'],
      screen: ['only_capable', 'Berlin:cannot_print Kraków:chosen Lisbon:cannot_print'],
      embroidery: ['only_capable', 'Berlin:cannot_print Kraków:cannot_print Lisbon:chosen'],
    });
    // the operator reads each as a sentence
    const text = await opsOrderText(split);
    expect(text).toContain('item screen-1 went to Kraków for');
    expect(text).toMatch(/Berlin cannot print screen; Lisbon cannot print screen/);
    expect(text).toMatch(/item digital-0 went to Berlin for [0-9-]+: prints digital in DE/);
    expect(text).toContain('Ships to');
    // the ops page shows where the parcel goes, never the address itself
    expect(text).not.toContain('Erika');
  }, 240_000);

  it('puts the sixth embroidery item of a day on the next working day’s capacity', async () => {
    // Lisbon took one today; five more: four fit today, the fifth goes to tomorrow
    const five = await order(
      ['embroidery', 'embroidery', 'embroidery', 'embroidery', 'embroidery'],
      toBerlin,
    );
    const v = await routed(five);
    const days = v.items.map((i) => i.routedDay).sort();
    expect(days).toEqual([...Array(4).fill(today('Europe/Lisbon')), today('Europe/Lisbon', 1)]);
    expect(new Set(v.items.map((i) => i.facilityId))).toEqual(new Set([facilities.lisbon.id]));
    const facts = String((await call('GET', '/metrics', { key: t.operatorKey })).body);
    expect(facts).toMatch(
      new RegExp(
        `editor_platform_facility_capacity_used_today\\{[^}]*facility="${facilities.lisbon.id}"[^}]*\\} 1\\b`,
      ),
    );
  }, 240_000);

  it("keeps each facility's key to its own items on every shop-floor route", async () => {
    const v = await view(split);
    const screen = byItem(v, 'screen')[0]!;
    const berlin = { key: facilities.berlin.key };
    // Kraków's item, as Berlin's key sees it: not found, whatever the route
    const refused = [
      await call('POST', '/v1/production/scans', {
        ...berlin,
        body: { code: screen.orderItemId, stage: 'printed' },
      }),
      await call('POST', `/v1/orderitems/${screen.orderItemId}/reprints`, {
        ...berlin,
        body: { reason: 'damaged' },
      }),
      await call('POST', `/v1/orders/${split}/shipments`, {
        ...berlin,
        body: { items: [screen.orderItemId], carrier: 'DHL', trackingNumber: 'X1' },
      }),
      await call('POST', '/v1/production/batches', {
        ...berlin,
        body: { items: [screen.orderItemId], media: { preset: 'SRA3' }, mode: 'step-repeat' },
      }),
    ];
    expect(refused.map((r) => r.status)).toEqual([404, 404, 404, 409]);
    // the batch found no item of Berlin's among those named
    expect(refused[3]!.body.detail).toContain('no such order item');
    // an order with none of its items is not Berlin's at all
    const polish = await order(['screen'], toKrakow);
    await routed(polish);
    for (const r of [
      await call('GET', `/api/orders/${polish}/packing-slip`, berlin),
      await call('POST', `/v1/orders/${polish}/holds`, { ...berlin, body: { reason: 'x' } }),
      await call('POST', `/v1/orders/${polish}/shipments`, {
        ...berlin,
        body: { carrier: 'DHL', trackingNumber: 'X2' },
      }),
    ])
      expect(r.status, JSON.stringify(r.body)).toBe(404);
    // a facility takes no sales
    expect(
      (
        await call('POST', '/v1/webhook/partner/1/notifyorder', {
          ...berlin,
          body: {
            orderId: 'X',
            items: [{ itemId: 'a', projectId: projects.digital, quantity: 1 }],
          },
        })
      ).status,
    ).toBe(403);
    // Kraków's own key scans it; the label's key sees every item
    const own = await call('POST', '/v1/production/scans', {
      key: facilities.krakow.key,
      body: { code: screen.orderItemId, stage: 'printed' },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const label = await call('POST', '/v1/production/scans', {
      key: labelKey,
      body: { code: byItem(v, 'digital')[0]!.orderItemId, stage: 'printed' },
    });
    expect(label.status).toBe(200);
  }, 240_000);

  it('ships a split order from each facility, each slip with the recipient and its own items only', async () => {
    // one parcel for items made in two places: refused, nothing recorded
    const both = await call('POST', `/v1/orders/${split}/shipments`, {
      key: labelKey,
      body: { carrier: 'DHL', trackingNumber: 'BOTH' },
    });
    expect(both.status).toBe(409);
    expect(both.body.code).toBe('several_facilities');
    const v = await view(split);
    const shipped: Record<string, string> = {};
    for (const [name, f] of Object.entries(facilities)) {
      const text = await slipText(split, f.key);
      expect(text).toContain('Erika Mustermann');
      expect(text).toContain('10115 Berlin');
      const mine = v.items.filter((i) => i.facilityId === f.id).map((i) => i.itemId);
      const others = v.items.filter((i) => i.facilityId !== f.id).map((i) => i.itemId);
      for (const id of mine) expect(text).toContain(id);
      for (const id of others) expect(text).not.toContain(id);
      if (name === 'lisbon') continue;
      const s = await call('POST', `/v1/orders/${split}/shipments`, {
        key: f.key,
        body: { carrier: 'DHL', trackingNumber: `T-${name}` },
      });
      expect(s.status, JSON.stringify(s.body)).toBe(201);
      shipped[s.body.shipmentId] = f.id;
    }
    const after = await view(split);
    expect(after.shipments.map((s) => s.facilityId).sort()).toEqual(
      [facilities.berlin.id, facilities.krakow.id].sort(),
    );
    // the order is as far as its least advanced item: Lisbon's is still to print
    expect(after.stage).toBe('ready');
    // Lisbon cannot see (or deliver) Berlin's shipment
    const berlinShipment = Object.keys(shipped).find((k) => shipped[k] === facilities.berlin.id)!;
    expect(
      (
        await call('POST', `/v1/orders/${split}/shipments/${berlinShipment}/delivered`, {
          key: facilities.lisbon.key,
        })
      ).status,
    ).toBe(404);
    // the shop hears where each item went, which facility printed it and shipped it, by
    // webhook and in the feed alike
    const told = await until('the messages of the split order', async () => {
      const f = await call('GET', '/api/events?limit=1000', { key: shopKey });
      const mine = (
        f.body.events as { id: string; type: string; data: Record<string, unknown> }[]
      ).filter((e) => e.data.orderId === split);
      return mine.filter((e) => e.type === 'order.shipped').length === 2 ? mine : undefined;
    });
    const facilityOfItem = new Map(v.items.map((i) => [i.orderItemId, i.facilityId]));
    const routedMessages = told.filter((e) => e.type === 'order.item.routed');
    expect(routedMessages).toHaveLength(3);
    for (const m of routedMessages) {
      const [id] = m.data.orderItemIds as string[];
      expect(m.data.facilityId).toBe(facilityOfItem.get(id!));
      expect(String(m.data.reason)).toMatch(/cannot print/);
    }
    const printedMessages = told.filter((e) => e.type === 'order.item.printed');
    expect(printedMessages.length).toBeGreaterThan(0);
    for (const m of printedMessages)
      expect(m.data.facilityId).toBe(facilityOfItem.get((m.data.orderItemIds as string[])[0]!));
    expect(
      told
        .filter((e) => e.type === 'order.shipped')
        .map((e) => e.data.facilityId)
        .sort(),
    ).toEqual([facilities.berlin.id, facilities.krakow.id].sort());
    const pushed = await until('the webhooks', async () => {
      const got = receiver.requests
        .map((r) => ({ id: r.id, body: parseMessage(r) }))
        .filter((r) => r.body.data.orderId === split);
      return got.length >= told.length ? got : undefined;
    });
    for (const e of told) {
      const { id, ...body } = e;
      expect(pushed.find((p) => p.id === id)?.body).toEqual(body);
    }
    // the address can no longer be corrected
    const late = await call('PUT', `/api/orders/${split}/ship-to`, { key: admin, body: toKrakow });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('already_shipped');
  }, 240_000);

  it('pauses Kraków: its items not on the press go elsewhere (or wait as unroutable), its batched one stays', async () => {
    const o = await order(['digital', 'digital', 'screen'], toKrakow);
    const v = await routed(o);
    expect(new Set(v.items.map((i) => i.facilityId))).toEqual(new Set([facilities.krakow.id]));
    const [first, second] = byItem(v, 'digital');
    const batch = await call('POST', '/v1/production/batches', {
      key: facilities.krakow.key,
      body: { items: [first!.orderItemId], media: { preset: 'SRA3' }, mode: 'step-repeat' },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    await until('the item batched', async () => {
      const i = (await view(o)).items.find((x) => x.orderItemId === first!.orderItemId);
      return i?.stage === 'batched' ? i : undefined;
    });
    // another facility does not see Kraków's press run
    expect(
      (
        await call('GET', `/v1/production/batches/${batch.body.batchId}`, {
          key: facilities.berlin.key,
        })
      ).status,
    ).toBe(404);
    const paused = await call('POST', `/api/facilities/${facilities.krakow.id}/pause`, {
      key: admin,
      body: { reason: 'press maintenance' },
    });
    expect(paused.status).toBe(200);
    expect(paused.body.paused).toBe(true);
    const moved = await until('the unbatched items moved', async () => {
      const x = await view(o);
      const s = x.items.find((i) => i.orderItemId === second!.orderItemId)!;
      const scr = byItem(x, 'screen')[0]!;
      return s.facilityId === facilities.berlin.id && scr.routing === 'unroutable' ? x : undefined;
    });
    expect(moved.items.find((i) => i.orderItemId === first!.orderItemId)!.facilityId).toBe(
      facilities.krakow.id,
    );
    const text = await opsOrderText(o);
    expect(text).toMatch(
      /item digital-1 went to Berlin for [0-9-]+: prints digital[^;]*; Kraków is paused/,
    );
    expect(text).toContain(
      'item screen-2 could not be routed: Berlin cannot print screen; Kraków is paused; Lisbon cannot print screen',
    );
    expect(text).toContain('unroutable');
    // resumed, Kraków takes the screen item back
    expect(
      (await call('POST', `/api/facilities/${facilities.krakow.id}/resume`, { key: admin })).status,
    ).toBe(200);
    await until('the screen item routed again', async () => {
      const scr = byItem(await view(o), 'screen')[0]!;
      return scr.facilityId === facilities.krakow.id ? scr : undefined;
    });
    // an operator moves the second digital item back by hand, with a reason
    const hand = await call('POST', `/api/orderitems/${second!.orderItemId}/route`, {
      key: admin,
      body: { facilityId: facilities.krakow.id, reason: 'Kraków has the paper' },
    });
    expect(hand.status, JSON.stringify(hand.body)).toBe(200);
    const last = (await history(o)).filter((e) => e.type === 'ItemRouted').at(-1)!;
    expect(last.actor).toMatch(/^admin:/);
    expect(last.data).toMatchObject({
      facilityId: facilities.krakow.id,
      reason: { rule: 'operator', by: { note: 'Kraków has the paper' } },
    });
    // the batched one cannot be moved
    const onPress = await call('POST', `/api/orderitems/${first!.orderItemId}/route`, {
      key: admin,
      body: { facilityId: facilities.berlin.id, reason: 'x' },
    });
    expect(onPress.status).toBe(409);
    // lists and the production board filter by facility
    const listed = await call('GET', `/api/orders?facilityId=${facilities.lisbon.id}&limit=100`, {
      key: admin,
    });
    expect(listed.status).toBe(200);
    const ids = listed.body.orders.map((x: { orderId: string }) => x.orderId);
    expect(ids).toContain(split);
    expect(ids).not.toContain(o);
  }, 300_000);

  it("runs a facility's batching rule on its own items only, into its own hot folder", async () => {
    const unknown = await call('PUT', '/api/production/batching', {
      key: admin,
      body: {
        rules: [
          {
            name: 'x',
            filter: { facilityId: randomUUID() },
            media: { preset: 'SRA3' },
            mode: 'gang',
            everyMinutes: 1,
          },
        ],
      },
    });
    expect(unknown.status).toBe(400);
    const set = await call('PUT', '/api/production/batching', {
      key: admin,
      body: {
        rules: [
          {
            name: 'krakow-digital',
            filter: { facilityId: facilities.krakow.id, printMethod: 'digital' },
            media: { preset: 'SRA3' },
            mode: 'gang',
            everyMinutes: 1,
          },
        ],
        hotFolder: 'presses',
      },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    // Berlin has ready digital items too: the rule leaves them
    const berlinReady = await order(['digital'], toBerlin);
    await routed(berlinReady);
    const batch = await until(
      "Kraków's rule to open a batch",
      async () => {
        const list = await call('GET', '/v1/production/batches', { key: facilities.krakow.key });
        const b = list.body.batches.find(
          (x: { source: string }) => x.source === 'rule krakow-digital',
        );
        if (!b) return undefined;
        const full = await call('GET', `/v1/production/batches/${b.batchId}`, {
          key: facilities.krakow.key,
        });
        // delivery to the hot folder is recorded after the sheets: wait for both
        return full.body.hotFolder ? full.body : undefined;
      },
      120_000,
    );
    expect(batch.facilityId).toBe(facilities.krakow.id);
    expect(batch.items.length).toBeGreaterThan(0);
    for (const i of batch.items as { orderItemId: string; orderId: string }[]) {
      const v = await view(i.orderId);
      expect(v.items.find((x) => x.orderItemId === i.orderItemId)!.facilityId).toBe(
        facilities.krakow.id,
      );
    }
    expect(batch.hotFolder?.location ?? '').toContain(`/presses/${facilities.krakow.id}/`);
    // Berlin's item is still waiting, and Berlin's key does not list Kraków's runs
    expect((await view(berlinReady)).items[0]!.stage).toBe('ready');
    const berlinList = await call('GET', '/v1/production/batches', { key: facilities.berlin.key });
    expect(berlinList.body.batches.map((b: { batchId: string }) => b.batchId)).not.toContain(
      batch.batchId,
    );
    // no more rules: the other tests' items stay where they are
    await call('PUT', '/api/production/batching', { key: admin, body: { rules: [] } });
  }, 240_000);

  it('keeps a day’s capacity under 50 racing sales: five a day, day after day, none twice', async () => {
    const tag = randomUUID().slice(0, 6);
    await importCatalog(call, t, 'supplier-a', [
      config(`SUB-${tag}`, { printMethod: 'sublimation' }),
    ]);
    const porto = await registerFacility(call, admin, {
      name: 'Porto',
      country: 'PT',
      timezone: 'Europe/Lisbon',
      capabilities: { printMethods: ['sublimation'] },
      capacity: { itemsPerDay: 5 },
      workingDays: EVERY_DAY,
    });
    const projectId = await saveProject(call, editorToken, `SUB-${tag}`, 'sub');
    const ids = Array.from({ length: 50 }, (_, n) => `RACE-${tag}-${n}`);
    await raceSales(call, shopKey, projectId, ids, toBerlin);
    const days: string[] = [];
    for (const orderId of ids) {
      const v = await routed(orderId);
      expect(v.items[0]!.facilityId).toBe(porto.id);
      days.push(v.items[0]!.routedDay!);
    }
    const perDay = new Map<string, number>();
    for (const d of days) perDay.set(d, (perDay.get(d) ?? 0) + 1);
    expect([...perDay.keys()].sort()).toEqual(
      Array.from({ length: 10 }, (_, n) => today('Europe/Lisbon', n)),
    );
    expect([...perDay.values()]).toEqual(Array(10).fill(5));
  }, 300_000);

  it('refuses bad addresses, naming the field and the rule, and records nothing', async () => {
    const bad: [Record<string, unknown>, string, RegExp][] = [
      [{ ...toBerlin, postalCode: '1011' }, 'shipTo.postalCode', /not a postal code of DE/],
      [
        {
          name: 'A',
          line1: '1 Infinite Loop',
          city: 'Cupertino',
          postalCode: '95014',
          country: 'US',
        },
        'shipTo.region',
        /needs its state/,
      ],
      [{ ...toBerlin, country: 'XQ' }, 'shipTo.country', /not an ISO 3166-1/],
      [{ ...toBerlin, name: 'Eri\u0000ka' }, 'shipTo.name', /NUL/],
      [{ ...toBerlin, line1: undefined }, 'shipTo.line1', /./],
    ];
    for (const [shipTo, field, detail] of bad) {
      const orderId = `BAD-${randomUUID().slice(0, 8)}`;
      const r = await call('POST', '/webhook/notifyorder', {
        key: shopKey,
        body: {
          orderId,
          items: [{ itemId: 'a', projectId: projects.digital, quantity: 1 }],
          shipTo,
        },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(JSON.stringify(r.body)).toContain(field);
      expect(JSON.stringify(r.body)).toMatch(detail);
      expect((await call('GET', `/api/orders/${orderId}`, { key: admin })).status).toBe(404);
    }
    // a US address with its state (by name) is kept with the state's code
    const us = await order(['digital'], {
      name: 'A',
      line1: '1 Infinite Loop',
      city: 'Cupertino',
      region: 'California',
      postalCode: '95014',
      country: 'us',
    });
    expect((await view(us)).shipTo).toMatchObject({ region: 'CA', country: 'US' });
  }, 120_000);

  it('corrects an address, then erases the customer: the address unreadable, the history whole', async () => {
    const o = await order(['embroidery'], toBerlin, {
      customer: { name: 'Erika Mustermann', email: 'erika@example.com' },
      giftMessage: 'Alles Gute',
    });
    await routed(o);
    const corrected = await call('PUT', `/api/orders/${o}/ship-to`, {
      key: admin,
      body: { ...toBerlin, line1: 'Hauptstraße 7' },
    });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    expect((await view(o)).shipTo).toMatchObject({ line1: 'Hauptstraße 7' });
    const before = await history(o);
    const correction = before.find((e) => e.type === 'ShipToCorrected')!;
    expect(correction.data.previous).toBeTruthy();
    // sealed: no word of the address in the events
    expect(JSON.stringify(before)).not.toContain('Hauptstraße');
    expect(JSON.stringify(before)).not.toContain('Erika');
    expect(await slipText(o, admin)).toContain('Hauptstraße 7');

    const erased = await call('DELETE', `/api/orders/${o}/customer`, { key: admin });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const after = await view(o);
    expect(after.shipTo).toBeUndefined();
    expect(after.customerErased).toBe(true);
    const events = await history(o);
    // every event is still there, byte for byte, and one more says who erased what when
    expect(events.slice(0, before.length)).toEqual(before);
    expect(events.at(-1)!.type).toBe('CustomerErased');
    const slipAfter = await slipText(o, admin);
    expect(slipAfter).not.toContain('Hauptstraße');
    expect(slipAfter).not.toContain('Alles Gute');
    expect(slipAfter).toContain('embroidery-0');
    await settled(t);
  }, 120_000);
});

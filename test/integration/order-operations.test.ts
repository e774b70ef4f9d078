import { createHash, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../src/domain/order/events.ts';
import { MAX_ORDER_WAITS } from '../../src/http/routes/orders/admin.ts';
import { type Answer, client, startTestApp, type TestApp } from '../helpers/app.ts';
import { refused, settled } from '../helpers/fixtures.ts';
import { sampleValue } from '../helpers/metrics.ts';
import { accessOf, type Shop, setUpShop, until } from '../helpers/orders.ts';

const METRICS_TOKEN = 'metrics-token-for-the-tests-0123456789';

/**
 * The operator's and the label admin's view of orders over real HTTP, against the real
 * PostgreSQL and Temporal: lists with filters and keyset pages, lateness, retry, cancel,
 * and a metrics scrape that moves by exactly what the test did.
 */
describe('order lists, lateness, retry, cancel and metrics', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let b: Shop;
  let photo: Buffer;
  let photoKey: string;
  /** order streams whose rendering waits for their gate to open */
  type Gate = { open: () => void; opened: Promise<void>; reached: boolean; done?: Promise<void> };
  const gates = new Map<string, Gate>();
  /** a render activity that waits at its order's gate, when it has one */
  const gated =
    <A extends [string, ...unknown[]], R>(render: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      const gate = gates.get(args[0]);
      if (!gate) return render(...args);
      gate.reached = true;
      const run = gate.opened.then(() => render(...args));
      gate.done = run.then(() => undefined);
      return run;
    };

  const hold = (labelId: string, orderId: string) => {
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    const gate: Gate = { open, opened, reached: false };
    gates.set(orderStream(labelId, orderId), gate);
    return gate;
  };

  beforeAll(async () => {
    t = await startTestApp(
      { OVERDUE_SWEEP_MS: '300', METRICS_TOKEN },
      {
        wrapActivities: (activities) => ({
          ...activities,
          renderOrderItem: gated(activities.renderOrderItem),
          printOrderItem: gated(activities.printOrderItem),
        }),
      },
    );
    call = client(t.url);
    const access = accessOf(t);
    a = await setUpShop(call, access, 2);
    b = await setUpShop(call, access, 1);
    photo = await sharp({
      create: { width: 300, height: 200, channels: 3, background: '#2255aa' },
    })
      .png()
      .toBuffer();
    const sha = createHash('sha256').update(photo).digest('hex');
    photoKey = `${sha.slice(0, 2)}/${sha}`;
  }, 180_000);
  afterAll(async () => t?.stop());

  const notify = async (shop: Shop, orderId: string, projects = shop.projects) => {
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.shopKey,
      body: {
        orderId,
        items: projects.map((projectId, n) => ({ itemId: `line-${n}`, projectId, quantity: 1 })),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  const order = async (shop: Shop, orderId: string) =>
    (await call('GET', `/api/orders/${encodeURIComponent(orderId)}`, { key: shop.adminKey })).body;
  const orderIn = (shop: Shop, orderId: string, statuses: string[], timeoutMs = 60_000) =>
    until(
      `order ${orderId} to be ${statuses.join(' or ')}`,
      async () => {
        const o = await order(shop, orderId);
        return statuses.includes(o?.status) ? o : undefined;
      },
      timeoutMs,
    );
  const history = async (shop: Shop, orderId: string) =>
    (
      await call('GET', `/api/orders/${encodeURIComponent(orderId)}/history`, {
        key: shop.adminKey,
      })
    ).body as { type: string; actor?: string; correlationId?: string; data: never }[];

  /** A project whose photo is missing from the image store: its order item fails. */
  async function projectWithLostPhoto(shop: Shop): Promise<string> {
    const r = await call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${shop.token}` },
      body: {
        name: 'Photo',
        sku: shop.sku,
        supplier: 'supplier-a',
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                {
                  type: 'image',
                  src: `data:image/png;base64,${photo.toString('base64')}`,
                  x: 0,
                  y: 0,
                  width: 30,
                  height: 20,
                },
              ],
            },
          ],
        },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(await t.app.images.remove(photoKey, new Date(Date.now() + 60_000))).toBe(true);
    return r.body.id;
  }
  const restorePhoto = () => t.app.images.put(photoKey, photo);

  describe('lists', () => {
    const prefix = `LIST-${randomUUID().slice(0, 6)}`;
    const ids = [1, 2, 3, 4, 5].map((n) => `${prefix}-${n}`);
    let received: Record<string, string>;

    beforeAll(async () => {
      for (const id of ids) await notify(a, id);
      await notify(b, `${prefix}-b`);
      const done = await Promise.all(ids.map((id) => orderIn(a, id, ['ready'])));
      received = Object.fromEntries(done.map((o) => [o.orderId, o.receivedAt]));
      await orderIn(b, `${prefix}-b`, ['ready']);
      await settled(t);
    }, 120_000);

    const page = (shop: Shop | 'operator', query: string) =>
      call('GET', `${shop === 'operator' ? '/operator' : '/api'}/orders?${query}`, {
        key: shop === 'operator' ? t.operatorKey : shop.adminKey,
      });

    it('pages a label admin through its own orders, newest first, by cursor', async () => {
      const seen: string[] = [];
      let next: string | null = `/api/orders?q=${prefix}&limit=2`;
      let pages = 0;
      while (next) {
        const r: Answer = await call('GET', next, { key: a.adminKey });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.body.orders.length).toBeLessThanOrEqual(2);
        if (r.body.next) expect(r.headers.get('x-pagination-next')).toBe(r.body.next);
        seen.push(...r.body.orders.map((o: { orderId: string }) => o.orderId));
        next = r.body.next;
        pages++;
      }
      expect(seen).toEqual([...ids].reverse());
      expect(pages).toBe(3);
      const first = (await page(a, `q=${prefix}-5`)).body.orders[0];
      expect(first).toMatchObject({
        orderId: `${prefix}-5`,
        labelId: a.labelId,
        labelName: expect.any(String),
        status: 'ready',
        overdue: false,
        items: { total: 2, received: 0, rendering: 0, ready: 2, failed: 0 },
        readyAt: expect.any(String),
        lastError: null,
        workflowId: `order:${a.labelId}:${prefix}-5`,
      });
      expect(first.ageSeconds).toBeGreaterThanOrEqual(0);
    });

    it('filters by status, receipt time and id prefix (item ids too)', async () => {
      const idsOf = async (shop: Shop | 'operator', q: string) =>
        (await page(shop, q)).body.orders.map((o: { orderId: string }) => o.orderId);
      expect(await idsOf(a, `q=${prefix}&status=ready`)).toHaveLength(5);
      expect(await idsOf(a, `q=${prefix}&status=failed`)).toEqual([]);
      const third = received[ids[2]!]!;
      expect(await idsOf(a, `q=${prefix}&since=${encodeURIComponent(third)}`)).toEqual([
        ids[4],
        ids[3],
        ids[2],
      ]);
      expect(await idsOf(a, `q=${prefix}&until=${encodeURIComponent(third)}`)).toEqual([
        ids[1],
        ids[0],
      ]);
      // an order item id finds its order
      const item = (await order(a, ids[1]!)).items[0].orderItemId as string;
      expect(await idsOf(a, `q=${item.slice(0, 13)}`)).toEqual([ids[1]]);
    });

    it('shows a label admin nothing of another label, and the operator everything', async () => {
      expect(
        (await page(b, `q=${prefix}`)).body.orders.map((o: { orderId: string }) => o.orderId),
      ).toEqual([`${prefix}-b`]);
      const all = await page('operator', `q=${prefix}&limit=200`);
      expect(all.body.orders).toHaveLength(6);
      const onlyB = await page('operator', `q=${prefix}&labelId=${b.labelId}`);
      expect(onlyB.body.orders.map((o: { labelId: string }) => o.labelId)).toEqual([b.labelId]);
      // another label's order is absent from the lists and unknown to its actions
      await refused(t, call, 404, 'POST', `/api/orders/${ids[0]}/retry`, { key: b.adminKey });
      await refused(t, call, 404, 'POST', `/api/orders/${ids[0]}/cancel`, { key: b.adminKey });
      await refused(t, call, 404, 'GET', `/operator/labels/${b.labelId}/orders/${ids[0]}`, {
        key: t.operatorKey,
      });
    });

    it('refuses bad filters with problem details and changes nothing', async () => {
      for (const q of [
        'cursor=not-a-cursor',
        `cursor=${Buffer.from('["x","y"]').toString('base64url')}`,
        'limit=201',
        'limit=0',
        'status=lost',
        'since=yesterday',
        `labelId=${b.labelId}`,
        `q=${'x'.repeat(129)}`,
      ])
        await refused(t, call, 400, 'GET', `/api/orders?${q}`, { key: a.adminKey });
      await refused(t, call, 400, 'GET', '/operator/orders?labelId=nope', { key: t.operatorKey });
      await refused(t, call, 403, 'GET', '/operator/orders', { key: a.adminKey });
      await refused(t, call, 401, 'GET', '/api/orders');
    });
  });

  describe('waiting for a change', () => {
    const get = (orderId: string, headers: Record<string, string> = {}) =>
      call('GET', `/api/orders/${orderId}`, { key: a.adminKey, headers });

    it('tags an order with its version; If-None-Match of it answers 304', async () => {
      const orderId = `ETAG-${randomUUID().slice(0, 8)}`;
      await notify(a, orderId);
      await orderIn(a, orderId, ['ready']);
      await settled(t);
      const first = await get(orderId);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect((await get(orderId)).headers.get('etag')).toBe(etag);
      for (const known of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const r = await get(orderId, { 'if-none-match': known });
        expect(r.status, known).toBe(304);
        expect(r.body).toBeUndefined();
        expect(r.headers.get('etag')).toBe(etag);
      }
      const other = await get(orderId, { 'if-none-match': '"other"' });
      expect(other.status).toBe(200);
      expect(other.body).toEqual(first.body);
      // a wait that sees no change ends with 304 after it; one it cannot read is not taken
      const began = Date.now();
      const waited = await get(orderId, { 'if-none-match': etag, prefer: 'wait=1' });
      expect(waited.status).toBe(304);
      expect(waited.headers.get('preference-applied')).toBe('wait=1');
      expect(Date.now() - began).toBeGreaterThanOrEqual(950);
      const unread = await get(orderId, { 'if-none-match': etag, prefer: 'wait=soon' });
      expect(unread.status).toBe(304);
      expect(unread.headers.get('preference-applied')).toBeNull();
      // without If-None-Match there is nothing to wait for
      // (each asks to wait 30 s: an answer well before that was not held)
      const plain = Date.now();
      expect((await get(orderId, { prefer: 'wait=30' })).status).toBe(200);
      expect(Date.now() - plain).toBeLessThan(15_000);
      // an order that does not exist is not waited for
      const missing = Date.now();
      const none = await get('NO-SUCH-ORDER', { 'if-none-match': etag, prefer: 'wait=30' });
      expect(none.status).toBe(404);
      expect(Date.now() - missing).toBeLessThan(15_000);
      expect(
        (await get(orderId, { 'if-none-match': 'x'.repeat(1025) })).headers.get('content-type'),
      ).toMatch(/problem\+json/);
    }, 120_000);

    /** a new order whose renders wait at their gate, and its answer meanwhile */
    const heldOrder = async (prefix: string) => {
      const orderId = `${prefix}-${randomUUID().slice(0, 8)}`;
      const gate = hold(a.labelId, orderId);
      await notify(a, orderId);
      await until('the renders to begin', async () => (gate.reached ? true : undefined));
      await settled(t);
      return { orderId, gate, seen: await get(orderId) };
    };

    it('answers a waiting client when the order changes, without it polling', async () => {
      const held = await heldOrder('WAIT');
      const { orderId, gate } = held;
      let { seen } = held;
      // held at the gate: the wait has nothing to answer yet
      let answered = false;
      const waiting = get(orderId, {
        'if-none-match': seen.headers.get('etag')!,
        prefer: 'wait=20',
      }).then((r) => {
        answered = true;
        return r;
      });
      let before = 0;
      try {
        expect(seen.body.status).not.toBe('ready');
        await new Promise((r) => setTimeout(r, 500));
        expect(answered).toBe(false);
        before = (await history(a, orderId)).length;
      } finally {
        gate.open();
      }
      // each answer is a change: the first file, then the order ready with the second
      let requests = 0;
      let next = waiting;
      for (;;) {
        const r = await next;
        requests++;
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(r.headers.get('etag')).not.toBe(seen.headers.get('etag'));
        expect(r.headers.get('preference-applied')).toBe('wait=20');
        seen = r;
        if (r.body.status === 'ready') break;
        next = get(orderId, { 'if-none-match': r.headers.get('etag')!, prefer: 'wait=20' });
      }
      // one answer per change at most, never a poll: no more answers than the order's events
      // after the gate (2 files, their preflights, ready; a loaded machine commits them one
      // by one, where a quiet one takes them in two or three pages)
      const changes = (await history(a, orderId)).length - before;
      expect(requests).toBeGreaterThanOrEqual(1);
      expect(requests).toBeLessThanOrEqual(Math.min(changes, 5));
      // and each was a change, not a wait run out (that answers 304, refused above)
      expect(
        seen.body.items.every((i: { printFiles: unknown[] }) => i.printFiles.length === 1),
      ).toBe(true);
    }, 120_000);

    it('holds at most its limit of racing waits, answers the others at once, and every held one on the change', async () => {
      const { orderId, gate, seen } = await heldOrder('RACE');
      const etag = seen.headers.get('etag')!;
      const over = 20;
      let answered = 0;
      const racing = Array.from({ length: MAX_ORDER_WAITS + over }, () =>
        get(orderId, { 'if-none-match': etag, prefer: 'wait=25' }).then((r) => {
          answered++;
          return r;
        }),
      );
      let all: Answer[] = [];
      try {
        // past the limit: answered as they come, unchanged and without the wait
        await until('the waits past the limit to be answered', async () =>
          answered >= over ? true : undefined,
        );
        await new Promise((r) => setTimeout(r, 300));
        expect(answered).toBe(over);
      } finally {
        gate.open();
        all = await Promise.all(racing);
      }
      const held = all.filter((r) => r.headers.get('preference-applied') === 'wait=25');
      const refused = all.filter((r) => r.headers.get('preference-applied') === null);
      expect(held).toHaveLength(MAX_ORDER_WAITS);
      expect(refused).toHaveLength(over);
      for (const r of refused) expect(r.status).toBe(304);
      // the change answered every held wait with the order as it changed
      for (const r of held) {
        expect(r.status).toBe(200);
        expect(r.headers.get('etag')).not.toBe(etag);
        expect(r.body.orderId).toBe(orderId);
      }
      // and their places are free again: a new wait is taken
      const ready = await orderIn(a, orderId, ['ready']);
      await settled(t);
      const last = await get(orderId);
      const again = await get(orderId, {
        'if-none-match': last.headers.get('etag')!,
        prefer: 'wait=1',
      });
      expect(again.status).toBe(304);
      expect(again.headers.get('preference-applied')).toBe('wait=1');
      expect(last.body).toEqual(ready);
    }, 120_000);
  });

  describe('previews', () => {
    it('draws each print-file page from the log, off the rendering path, and serves it', async () => {
      const orderId = `PREVIEW-${randomUUID().slice(0, 8)}`;
      await notify(a, orderId);
      const ready = await orderIn(a, orderId, ['ready']);
      const item = ready.items[0];
      const file = item.printFiles[0];
      const key = `${a.labelId}/${item.orderItemId}/${file.sha256}-p1.png`;
      // the reactor stores it without anyone asking; previews are drawn at the lowest CPU
      // priority once renders leave room, which a loaded machine can put off for minutes
      const png = await until('the preview to be drawn', () => t.app.storage.get(key), 180_000);
      const meta = await sharp(png).metadata();
      expect(meta.format).toBe('png');
      expect(Math.max(meta.width!, meta.height!)).toBe(600);
      const served = await fetch(
        `${t.url}/api/orderitem/${item.orderItemId}/preview?sha256=${file.sha256}&page=1`,
        { headers: { 'x-api-key': a.adminKey } },
      );
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
      for (const [key, query] of [
        [b.adminKey, `sha256=${file.sha256}&page=1`],
        [a.adminKey, `sha256=${'0'.repeat(64)}&page=1`],
        [a.adminKey, `sha256=${file.sha256}&page=2`],
      ] as const)
        await refused(t, call, 404, 'GET', `/api/orderitem/${item.orderItemId}/preview?${query}`, {
          key,
        });
      await refused(t, call, 400, 'GET', `/api/orderitem/${item.orderItemId}/preview?sha256=x`, {
        key: a.adminKey,
      });
    }, 240_000);
  });

  describe('lateness', () => {
    it('sets the deadline per label, and refuses bad ones', async () => {
      for (const body of [{ renderWithinMinutes: -1 }, { renderWithinMinutes: 1.5 }, {}])
        await refused(t, call, 400, 'PUT', `/operator/labels/${a.labelId}/render-deadline`, {
          key: t.operatorKey,
          body,
        });
      await refused(t, call, 404, 'PUT', `/operator/labels/${randomUUID()}/render-deadline`, {
        key: t.operatorKey,
        body: { renderWithinMinutes: 5 },
      });
      const r = await call('PUT', `/operator/labels/${a.labelId}/render-deadline`, {
        key: t.operatorKey,
        body: { renderWithinMinutes: 0 },
      });
      expect(r.status).toBe(200);
      const labels = await call('GET', '/operator/labels', { key: t.operatorKey });
      expect(
        labels.body.find((l: { labelId: string }) => l.labelId === a.labelId).renderWithinMinutes,
      ).toBe(0);
      expect(
        labels.body.find((l: { labelId: string }) => l.labelId === b.labelId).renderWithinMinutes,
      ).toBe(30);
    });

    it('lists an unfinished order past its deadline as overdue and records it once', async () => {
      const orderId = `LATE-${randomUUID().slice(0, 8)}`;
      await notify(a, orderId, [await projectWithLostPhoto(a)]);
      const failed = await orderIn(a, orderId, ['failed']);
      expect(failed.overdue).toBe(true);
      const listed = await call('GET', `/api/orders?status=overdue&q=${orderId}`, {
        key: a.adminKey,
      });
      expect(listed.body.orders).toHaveLength(1);
      expect(listed.body.orders[0]).toMatchObject({
        overdue: true,
        status: 'failed',
        lastError: expect.stringContaining('image'),
        items: { total: 1, failed: 1 },
      });
      await until('the lateness to be recorded', async () =>
        (await history(a, orderId)).some((e) => e.type === 'OrderWentOverdue') ? true : undefined,
      );
      // many sweeps later, still once
      await new Promise((r) => setTimeout(r, 1500));
      const late = (await history(a, orderId)).filter((e) => e.type === 'OrderWentOverdue');
      expect(late).toHaveLength(1);
      expect(late[0]!.actor).toBe('system:deadlines');
      expect((await order(a, orderId)).overdue).toBe(true);
      await restorePhoto();
    });

    afterAll(async () => {
      await call('PUT', `/operator/labels/${a.labelId}/render-deadline`, {
        key: t.operatorKey,
        body: { renderWithinMinutes: 30 },
      });
    });
  });

  describe('retry', () => {
    it('renders the failed items again; the history shows who asked and when', async () => {
      const orderId = `RETRY-${randomUUID().slice(0, 8)}`;
      await notify(a, orderId, [a.projects[0]!, await projectWithLostPhoto(a)]);
      const failed = await orderIn(a, orderId, ['failed']);
      const bad = failed.items.find((i: { status: string }) => i.status === 'failed');
      expect(bad.reason).toMatch(/image/);
      await restorePhoto();

      const r = await call('POST', `/api/orders/${orderId}/retry`, {
        key: a.adminKey,
        headers: { 'x-request-id': `retry-${orderId}` },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      expect(r.body).toEqual({
        orderId,
        orderItemIds: [bad.orderItemId],
        workflowId: `order:${a.labelId}:${orderId}`,
      });
      const ready = await orderIn(a, orderId, ['ready']);
      expect(ready.items.map((i: { status: string }) => i.status)).toEqual(['ready', 'ready']);
      // the failure is history now, no longer the order's last error
      expect(failed.lastError).toMatch(/image/);
      expect(ready.lastError).toBeUndefined();
      expect(ready.items[1].printFiles).toHaveLength(1);
      expect(ready.items[0].printFiles).toHaveLength(1); // the good item is not rendered again
      // the workflow can be found by the order, and says how it ended
      const described = await t.app
        .temporal!.client.workflow.getHandle(`order:${a.labelId}:${orderId}`)
        .describe();
      expect(described.searchAttributes).toMatchObject({
        OrderId: [orderId],
        LabelId: [a.labelId],
        OrderStatus: ['ready'],
      });
      expect(await described.staticSummary()).toBe(`Order ${orderId}`);
      const asked = (await history(a, orderId)).filter((e) => e.type === 'OrderRetryRequested');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        actor: `admin:${a.labelId}`,
        correlationId: `retry-${orderId}`,
        data: { orderItemIds: [bad.orderItemId], requestedAt: expect.any(String) },
      });
      // nothing left to retry
      const again = await refused(t, call, 409, 'POST', `/api/orders/${orderId}/retry`, {
        key: a.adminKey,
      });
      expect(again.code).toBe('nothing_to_retry');
    }, 120_000);

    it('takes 20 racing retries as one, by the admin or the operator', async () => {
      const orderId = `RACE-${randomUUID().slice(0, 8)}`;
      await notify(a, orderId, [await projectWithLostPhoto(a)]);
      await orderIn(a, orderId, ['failed']);
      await restorePhoto();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          n % 2
            ? call('POST', `/api/orders/${orderId}/retry`, { key: a.adminKey })
            : call('POST', `/operator/labels/${a.labelId}/orders/${orderId}/retry`, {
                key: t.operatorKey,
              }),
        ),
      );
      expect(answers.map((x) => x.status)).toEqual(Array(20).fill(202));
      expect(answers.filter((x) => x.body.orderItemIds.length === 1)).toHaveLength(1);
      await orderIn(a, orderId, ['ready']);
      const asked = (await history(a, orderId)).filter((e) => e.type === 'OrderRetryRequested');
      expect(asked).toHaveLength(1);
      expect(['operator', `admin:${a.labelId}`]).toContain(asked[0]!.actor);
    }, 120_000);
  });

  describe('cancel', () => {
    it('stops the workflow; no print file follows; retry and barcode are refused', async () => {
      const orderId = `CANCEL-${randomUUID().slice(0, 8)}`;
      const gate = hold(a.labelId, orderId);
      await notify(a, orderId);
      // its renders have begun (a new order's renders start its rendering, once through the gate)
      await until('the renders to begin', async () => (gate.reached ? true : undefined));
      const r = await call('POST', `/api/orders/${orderId}/cancel`, {
        key: a.adminKey,
        body: { reason: 'the customer withdrew it' },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({
        orderId,
        status: 'cancelled',
        cancelledAt: expect.any(String),
      });
      const handle = t.app.temporal!.client.workflow.getHandle(`order:${a.labelId}:${orderId}`);
      await until('the workflow to be cancelled', async () =>
        (await handle.describe()).status.name === 'CANCELLED' ? true : undefined,
      );
      // the renders that were under way finish now, and record nothing
      gate.open();
      await until('the held renders to finish', async () => gate.done?.then(() => true));
      await settled(t);
      const o = await order(a, orderId);
      expect(o.status).toBe('cancelled');
      expect(o.items.map((i: { printFiles: unknown[] }) => i.printFiles)).toEqual([[], []]);
      const events = await history(a, orderId);
      expect(events.map((e) => e.type)).not.toContain('PrintFileGenerated');
      expect(events.find((e) => e.type === 'OrderCancelled')).toMatchObject({
        actor: `admin:${a.labelId}`,
        data: { reason: 'the customer withdrew it' },
      });
      // cancelling again answers the same
      const again = await call('POST', `/operator/labels/${a.labelId}/orders/${orderId}/cancel`, {
        key: t.operatorKey,
      });
      expect(again.body).toEqual(r.body);
      expect(
        (
          await refused(t, call, 409, 'POST', `/api/orders/${orderId}/retry`, {
            key: a.adminKey,
          })
        ).code,
      ).toBe('order_cancelled');
      await refused(t, call, 409, 'PUT', `/api/orderitem/${o.items[0].orderItemId}/barcode`, {
        key: a.adminKey,
        body: { format: 'code128', value: 'NEW' },
      });
      const listed = await call('GET', `/api/orders?status=cancelled&q=${orderId}`, {
        key: a.adminKey,
      });
      expect(listed.body.orders[0]).toMatchObject({ status: 'cancelled', overdue: false });
    }, 120_000);
  });

  describe('cancel while rendering', () => {
    it('renders none of the items still to begin once the order is cancelled', async () => {
      const orderId = `CANCEL3-${randomUUID().slice(0, 8)}`;
      const gate = hold(a.labelId, orderId);
      // three items, two rendered at a time: the third begins after the first two
      const body = await notify(a, orderId, [a.projects[0]!, a.projects[1]!, a.projects[0]!]);
      const third = body.items.find((i: { itemId: string }) => i.itemId === 'line-2');
      await until('the renders to begin', async () => (gate.reached ? true : undefined));
      const r = await call('POST', `/api/orders/${orderId}/cancel`, { key: a.adminKey });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // the two under way finish, and the workflow goes on to the third before it learns
      // of the cancellation (its task ends with its renders)
      gate.open();
      const handle = t.app.temporal!.client.workflow.getHandle(`order:${a.labelId}:${orderId}`);
      await until('the workflow to end', async () =>
        (await handle.describe()).status.name !== 'RUNNING' ? true : undefined,
      );
      await settled(t);
      const events = await history(a, orderId);
      expect(events.map((e) => e.type)).not.toContain('PrintFileGenerated');
      // nothing rendered for the third: no file of it in the store, not even unrecorded
      const kept = await t.app.storage.list(`${a.labelId}/${third.orderItemId}/`);
      expect(kept).toEqual([]);
    }, 120_000);
  });

  describe('metrics', () => {
    const scrape = async (auth: Record<string, string>) => {
      const r = await fetch(`${t.url}/metrics`, { headers: auth });
      return { status: r.status, text: await r.text(), type: r.headers.get('content-type') };
    };

    it('moves the counters by exactly what was done', async () => {
      await settled(t);
      const before = (await scrape({ authorization: `Bearer ${METRICS_TOKEN}` })).text;
      const ok = `MET-${randomUUID().slice(0, 8)}`;
      const bad = `MET-${randomUUID().slice(0, 8)}`;
      await notify(a, ok);
      await notify(a, bad, [await projectWithLostPhoto(a)]);
      await orderIn(a, ok, ['ready']);
      await orderIn(a, bad, ['failed']);
      await restorePhoto();
      await settled(t);
      const r = await scrape({ 'x-api-key': t.operatorKey });
      expect(r.status).toBe(200);
      expect(r.type).toMatch(/^text\/plain; version=0\.0\.4/);
      const delta = (name: string, labels?: Record<string, string>) =>
        sampleValue(r.text, name, labels) - sampleValue(before, name, labels);
      expect(delta('editor_platform_orders_received_total')).toBe(2);
      expect(delta('editor_platform_order_items_rendered_total')).toBe(2);
      expect(delta('editor_platform_order_items_failed_total', { reason: 'image_missing' })).toBe(
        1,
      );
      expect(delta('editor_platform_render_duration_seconds_count')).toBe(3);
      // each new order's first workflow task came back with its start, to the worker here
      expect(
        delta('editor_platform_order_workflow_starts_total', { first_task: 'handed_over' }),
      ).toBe(2);
      // renders began ahead of the workflows on the render slots free then (nothing else
      // renders here), and each was taken by its item's activity: one made from another
      // job than the activity's would be left unclaimed
      const ahead = (outcome: string) => delta('editor_platform_renders_ahead_total', { outcome });
      expect(ahead('taken')).toBeGreaterThanOrEqual(1);
      expect(ahead('unclaimed')).toBe(0);
      expect(
        delta('editor_platform_http_request_duration_seconds_count', {
          route: '/webhook/notifyorder',
          status_code: '200',
        }),
      ).toBe(2);
      expect(sampleValue(r.text, 'editor_platform_orders', { status: 'failed' })).toBeGreaterThan(
        0,
      );
      for (const name of [
        'editor_platform_subscription_lag_events',
        'editor_platform_parked_events',
        'editor_platform_oldest_unfinished_order_age_seconds',
        'editor_platform_overdue_orders',
        'editor_platform_task_queue_pollers',
        'editor_platform_event_store_append_duration_seconds_count',
      ])
        expect(r.text).toContain(name);
      expect(sampleValue(r.text, 'editor_platform_task_queue_pollers')).toBeGreaterThan(0);
      // the Temporal SDK's own metrics, from the worker in this process
      expect(r.text).toMatch(/^temporal_\w+/m);
    }, 120_000);

    it('is closed to anyone without the operator key or the metrics token', async () => {
      expect((await scrape({})).status).toBe(401);
      expect((await scrape({ authorization: 'Bearer wrong-token-wrong-token' })).status).toBe(401);
      expect((await scrape({ 'x-api-key': a.adminKey })).status).toBe(401);
      // each secret in its own header only: the operator key is not a bearer token, nor
      // the metrics token an API key
      expect((await scrape({ authorization: `Bearer ${t.operatorKey}` })).status).toBe(401);
      expect((await scrape({ 'x-api-key': METRICS_TOKEN })).status).toBe(401);
      const r = await scrape({});
      expect(r.type).toMatch(/^application\/problem\+json/);
    });
  });
});

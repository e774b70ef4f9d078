import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { opsLogin, settled } from '../helpers/fixtures.ts';
import { anotherLabelServed, expectOthersServed, watchLoop } from '../helpers/loop-watch.ts';
import { sampleValue } from '../helpers/metrics.ts';
import { accessOf, type Shop, setUpShop, until } from '../helpers/orders.ts';
import { parseMessage as parse, startReceiver } from '../helpers/webhook-receiver.ts';

/**
 * Signed order-status webhooks against a real receiver, the real PostgreSQL and the
 * Temporal dev server, with the retry schedule compressed a thousandfold.
 */
describe('order-status webhooks', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let shop: Shop;
  let other: Shop;
  let integrationId: string;
  let secret: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  const order = async (orderId: string, s = shop) => {
    const r = await call('POST', '/webhook/notifyorder', {
      key: s.shopKey,
      body: {
        orderId,
        items: s.projects.map((projectId, n) => ({ itemId: `l${n}`, projectId, quantity: 1 })),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  const delivered = (orderId: string, type: string) =>
    receiver.requests.filter(
      (r) => r.answered < 300 && parse(r).type === type && parse(r).data.orderId === orderId,
    );
  const webhookPath = () => `/api/shop-integration/${integrationId}/webhook`;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_ALLOW_HTTP: 'on',
      WEBHOOK_SCHEDULE_SCALE: '0.001',
    });
    call = client(t.url);
    const access = accessOf(t);
    shop = await setUpShop(call, access, 2);
    other = await setUpShop(call, access, 1);
    const list = await call('GET', '/api/shop-integration', { key: shop.adminKey });
    integrationId = list.body[0].id;
  }, 240_000);
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it('sets an endpoint and answers its signing secret once', async () => {
    const bad = await call('PUT', webhookPath(), {
      key: shop.adminKey,
      body: { url: 'ftp://x.example/' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_webhook_url');
    const wrongType = await call('PUT', webhookPath(), {
      key: shop.adminKey,
      body: { url: receiver.url(), events: ['order.teleported'] },
    });
    expect(wrongType.status).toBe(400);
    const foreign = await call('PUT', webhookPath(), {
      key: other.adminKey,
      body: { url: receiver.url() },
    });
    expect(foreign.status).toBe(404);
    const none = await call('GET', webhookPath(), { key: shop.adminKey });
    expect(none.body).toMatchObject({ state: 'none', url: null, secrets: [] });
    const early = await call('POST', `${webhookPath()}/rotate`, { key: shop.adminKey });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('webhook_not_set');

    const r = await call('PUT', webhookPath(), {
      key: shop.adminKey,
      body: { url: receiver.url() },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(r.body).toMatchObject({ url: receiver.url(), events: null, state: 'enabled' });
    secret = r.body.secret;
    const read = await call('GET', webhookPath(), { key: shop.adminKey });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(secret);
    expect(read.body.secrets).toHaveLength(1);
    // the secret is in no event in the clear
    const inLog = await t.app.db.pool.query(
      `SELECT count(*)::int AS n FROM es_events WHERE data::text LIKE '%' || $1 || '%'`,
      [secret.slice(6, 30)],
    );
    expect(inLog.rows[0].n).toBe(0);
  });

  it('pushes each order message signed, in sequence, and the pull feed has exactly the same', async () => {
    const orderId = `WH-${randomUUID().slice(0, 8)}`;
    await order(orderId);
    await until(
      // each message is a delivery of its own: they may arrive in any order
      'every message of the order',
      async () =>
        delivered(orderId, 'order.ready').length &&
        delivered(orderId, 'order.received').length &&
        delivered(orderId, 'order.item.print_ready').length === 2
          ? true
          : undefined,
      90_000,
    );
    const mine = receiver.requests.filter((r) => parse(r).data.orderId === orderId);
    const types = mine.map((r) => parse(r).type);
    expect(types.filter((x) => x === 'order.received')).toHaveLength(1);
    expect(types.filter((x) => x === 'order.item.print_ready')).toHaveLength(2);
    const wh = new Webhook(secret);
    for (const r of mine) {
      expect(() => wh.verify(r.body, r.headers)).not.toThrow();
      expect(r.headers['webhook-id']).toMatch(/^msg_/);
    }
    // receivers see the messages of one order in its order
    const bySequence = [...mine].sort((a, b) => parse(a).data.sequence - parse(b).data.sequence);
    expect(bySequence[0] && parse(bySequence[0]).type).toBe('order.received');
    expect(bySequence.at(-1) && parse(bySequence.at(-1)!).type).toBe('order.ready');
    expect(new Set(mine.map((r) => parse(r).data.sequence)).size).toBe(mine.length);
    const ready = parse(delivered(orderId, 'order.item.print_ready')[0]!).data;
    expect(ready).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), pages: 1 });
    const file = await call('GET', String(ready.download), { key: shop.adminKey });
    expect(file.status).toBe(200);

    // the feed (integration key and admin key) holds the same messages, in log order
    const feed = await until('the feed to hold the order', async () => {
      const f = await call('GET', '/api/events?limit=1000', { key: shop.shopKey });
      const ofOrder = f.body.events.filter(
        (e: { data: { orderId: string } }) => e.data.orderId === orderId,
      );
      return ofOrder.length === mine.length ? f.body : undefined;
    });
    const pushed = new Map(mine.map((r) => [r.id, JSON.parse(r.body)]));
    for (const e of feed.events.filter(
      (x: { data: { orderId: string } }) => x.data.orderId === orderId,
    )) {
      const { id, ...body } = e;
      expect(pushed.get(id)).toEqual(body);
    }
    const seqs = feed.events
      .filter((x: { data: { orderId: string } }) => x.data.orderId === orderId)
      .map((x: { data: { sequence: number } }) => x.data.sequence);
    expect(seqs).toEqual([...seqs].sort((a: number, b: number) => a - b));
    const admin = await call('GET', '/api/events?limit=1000', { key: shop.adminKey });
    expect(admin.body.events.map((e: { id: string }) => e.id)).toEqual(
      expect.arrayContaining([...pushed.keys()]),
    );
    // paging by cursor gives the same as one page
    const first = await call('GET', '/api/events?limit=2', { key: shop.adminKey });
    const rest = await call('GET', `/api/events?limit=1000&after=${first.body.next}`, {
      key: shop.adminKey,
    });
    expect([...first.body.events, ...rest.body.events].map((e: { id: string }) => e.id)).toEqual(
      admin.body.events.map((e: { id: string }) => e.id),
    );
    // another label never sees them
    const foreign = await call('GET', '/api/events?limit=1000', { key: other.adminKey });
    expect(
      foreign.body.events.filter((e: { data: { orderId: string } }) => e.data.orderId === orderId),
    ).toEqual([]);
    expect((await call('GET', '/api/events?after=x.y', { key: shop.adminKey })).status).toBe(400);
  }, 120_000);

  it('retries a receiver that is down and delivers once it is back, with the same webhook-id', async () => {
    const orderId = `DOWN-${randomUUID().slice(0, 8)}`;
    let failures = 0;
    receiver.answerWith((r) => {
      if (parse(r).data.orderId === orderId && parse(r).type === 'order.received' && failures < 3) {
        failures++;
        return { status: 503 };
      }
      return { status: 200 };
    });
    await order(orderId);
    await until(
      'the received message to arrive',
      async () => (delivered(orderId, 'order.received').length ? true : undefined),
      60_000,
    );
    const attempts = receiver.requests.filter(
      (r) => parse(r).data.orderId === orderId && parse(r).type === 'order.received',
    );
    expect(attempts.map((r) => r.answered)).toEqual([503, 503, 503, 200]);
    expect(new Set(attempts.map((r) => r.id)).size).toBe(1);
    const deliveries = await until('the deliveries log', async () => {
      const d = await call('GET', `${webhookPath()}/deliveries?status=delivered`, {
        key: shop.adminKey,
      });
      return d.body.find(
        (x: { orderId: string; type: string }) =>
          x.orderId === orderId && x.type === 'order.received',
      );
    });
    expect(deliveries.attempts).toBe(4);
    expect(deliveries.log.map((a: { status: number }) => a.status)).toEqual([503, 503, 503, 200]);
    expect(deliveries.log[0]).toMatchObject({ outcome: 'retrying', response: 'answer 503' });
    receiver.answerWith(() => ({ status: 204 }));
  }, 120_000);

  it('reads an endless answer only up to its limit: the connection closed, the memory kept', async () => {
    const orderId = `ENDLESS-${randomUUID().slice(0, 8)}`;
    receiver.answerWith((r) =>
      parse(r).data.orderId === orderId ? { status: 200, endless: true } : { status: 204 },
    );
    const answerBytes = async () =>
      sampleValue(
        String((await call('GET', '/metrics', { key: t.operatorKey })).body),
        'editor_platform_webhook_answer_bytes_read_total',
      );
    const readBefore = await answerBytes();
    const sentBefore = receiver.endlessSent;
    const watch = watchLoop(t.url);
    const served = anotherLabelServed(call, other);
    await order(orderId);
    const d = await until('the endless delivery recorded', async () => {
      const r = await call('GET', `${webhookPath()}/deliveries?status=delivered`, {
        key: shop.adminKey,
      });
      return r.body.find(
        (x: { orderId: string; type: string }) =>
          x.orderId === orderId && x.type === 'order.received',
      );
    });
    const elsewhere = await served;
    const seen = await watch.stop();
    expectOthersServed(seen, elsewhere);
    expect(d.log[0]).toMatchObject({ status: 200, outcome: 'delivered' });
    expect(d.log[0].response).toMatch(/^x{100}/);
    // the connection closed at the limit: the receiver wrote what the socket buffers on
    // both sides took meanwhile (loopback's grow to megabytes; 15 MB seen), not its 1 GiB
    const sent = receiver.endlessSent - sentBefore;
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    // what the delivery read, counted where it reads: the 64 KiB limit and the chunk that
    // crossed it (a chunk is at most a socket read), never the megabytes sent meanwhile.
    // The other deliveries of this window are answered with empty bodies.
    const read = (await answerBytes()) - readBefore;
    expect(read).toBeGreaterThanOrEqual(64 * 1024);
    expect(read).toBeLessThan(1024 * 1024);
    receiver.answerWith(() => ({ status: 204 }));
  }, 120_000);

  it("waits as long as a receiver's Retry-After asks", async () => {
    const orderId = `LATER-${randomUUID().slice(0, 8)}`;
    let asked = false;
    receiver.answerWith((r) => {
      if (!asked && parse(r).data.orderId === orderId && parse(r).type === 'order.received') {
        asked = true;
        return { status: 429, headers: { 'retry-after': '2' } };
      }
      return { status: 204 };
    });
    await order(orderId);
    await until(
      'the received message',
      async () => (delivered(orderId, 'order.received').length ? true : undefined),
      60_000,
    );
    const [refusedAt, tookAt] = receiver.requests
      .filter((r) => parse(r).data.orderId === orderId && parse(r).type === 'order.received')
      .map((r) => r.at);
    // without it the second attempt would come after 5 s / 1000
    expect(tookAt! - refusedAt!).toBeGreaterThanOrEqual(1_900);
  }, 120_000);

  it('signs with the old and the new secret during a rotation; a tampered body fails', async () => {
    const rotated = await call('POST', `${webhookPath()}/rotate`, { key: shop.adminKey });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(secret);
    expect(rotated.body.secrets).toHaveLength(2);
    expect(rotated.body.secrets[1].until).toBeTruthy();
    const orderId = `ROT-${randomUUID().slice(0, 8)}`;
    await order(orderId);
    await until(
      'the ready message',
      async () => (delivered(orderId, 'order.ready').length ? true : undefined),
      90_000,
    );
    const r = delivered(orderId, 'order.ready')[0]!;
    expect(r.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(secret).verify(r.body, r.headers)).not.toThrow();
    expect(() => new Webhook(rotated.body.secret).verify(r.body, r.headers)).not.toThrow();
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(r.body, r.headers),
    ).toThrow();
    const tampered = r.body.replace('order.ready', 'order.failed');
    expect(() => new Webhook(rotated.body.secret).verify(tampered, r.headers)).toThrow();
    secret = rotated.body.secret;
  }, 120_000);

  it('disables the endpoint on 410; messages stay in the feed; enabled again, failed deliveries are recovered', async () => {
    const since = new Date().toISOString();
    receiver.answerWith(() => ({ status: 410 }));
    const orderId = `GONE-${randomUUID().slice(0, 8)}`;
    await order(orderId);
    const disabled = await until('the endpoint to be disabled', async () => {
      const w = await call('GET', webhookPath(), { key: shop.adminKey });
      return w.body.state === 'disabled' ? w.body : undefined;
    });
    expect(disabled.disabled).toMatchObject({ reason: 'gone' });
    receiver.answerWith(() => ({ status: 204 }));
    // nothing more is sent while disabled; the feed still has the order's messages
    await until(
      'the order to be ready',
      async () => {
        const o = await call('GET', `/api/orders/${orderId}`, { key: shop.adminKey });
        return o.body.status === 'ready' ? true : undefined;
      },
      90_000,
    );
    expect(delivered(orderId, 'order.ready')).toEqual([]);
    const feed = await until('the feed', async () => {
      const f = await call('GET', '/api/events?limit=1000', { key: shop.shopKey });
      return f.body.events.some(
        (e: { type: string; data: { orderId: string } }) =>
          e.type === 'order.ready' && e.data.orderId === orderId,
      )
        ? f
        : undefined;
    });
    expect(feed.status).toBe(200);
    expect(
      (await call('POST', `${webhookPath()}/recover`, { key: shop.adminKey, body: { since } }))
        .status,
    ).toBe(409);

    expect((await call('POST', `${webhookPath()}/enable`, { key: shop.adminKey })).body.state).toBe(
      'enabled',
    );
    const failed = await call(
      'GET',
      `${webhookPath()}/deliveries?status=failed&since=${encodeURIComponent(since)}`,
      { key: shop.adminKey },
    );
    expect(failed.body.length).toBeGreaterThanOrEqual(1);
    const goneId = failed.body[0].messageId;
    const recovered = await call('POST', `${webhookPath()}/recover`, {
      key: shop.adminKey,
      body: { since },
    });
    expect(recovered.status).toBe(202);
    expect(recovered.body.resent).toBe(failed.body.length);
    await until('the recovered delivery', async () =>
      receiver.requests.some((r) => r.id === goneId && r.answered === 204) ? true : undefined,
    );
    // and one resent by hand arrives again with its id
    const one = await call(
      'POST',
      `${webhookPath()}/deliveries/${encodeURIComponent(failed.body[0].deliveryId)}/resend`,
      { key: shop.adminKey },
    );
    expect(one.status).toBe(202);
    await until('the resent delivery', async () =>
      receiver.requests.filter((r) => r.id === goneId && r.answered === 204).length === 2
        ? true
        : undefined,
    );
    expect(
      (await call('POST', `${webhookPath()}/deliveries/nope/resend`, { key: shop.adminKey }))
        .status,
    ).toBe(404);
  }, 180_000);

  it('disables an endpoint that has failed every delivery for five days', async () => {
    // the deliveries of the tests before are recorded first: one recorded after the
    // update below would clear what it sets (a success ends a failing streak)
    await until('the earlier deliveries to be recorded', async () => {
      const queued = await t.app.db.pool.query(
        'SELECT 1 FROM webhook_queue WHERE integration_id = $1 LIMIT 1',
        [integrationId],
      );
      return queued.rowCount === 0 ? true : undefined;
    });
    await settled(t);
    receiver.answerWith(() => ({ status: 500 }));
    // the endpoint has been failing for six days (as the deliveries log says)
    await t.app.db.pool.query(
      `UPDATE rm_webhook_endpoints SET failing_since = now() - interval '6 days'
       WHERE integration_id = $1`,
      [integrationId],
    );
    await order(`FAIL-${randomUUID().slice(0, 8)}`);
    const w = await until('the endpoint to be disabled', async () => {
      const r = await call('GET', webhookPath(), { key: shop.adminKey });
      return r.body.state === 'disabled' ? r.body : undefined;
    });
    expect(w.disabled).toMatchObject({ reason: 'failing' });
    expect(w.disabled.detail).toMatch(/every delivery failed since/);
    receiver.answerWith(() => ({ status: 204 }));
    expect((await call('POST', `${webhookPath()}/enable`, { key: shop.adminKey })).status).toBe(
      200,
    );
  });

  it("shows the endpoint's health on the ops page", async () => {
    const cookie = await opsLogin(t.url, shop.adminKey);
    const page = await fetch(`${t.url}/ops`, { headers: { cookie } }).then((r) => r.text());
    expect(page).toContain('Webhook endpoints');
    expect(page).toContain(receiver.url());
    expect(page).toMatch(/webhooks failing/);
  });

  it('counts deliveries by outcome in the metrics', async () => {
    const m = await call('GET', '/metrics', { key: t.operatorKey });
    expect(m.status).toBe(200);
    expect(String(m.body)).toMatch(
      /editor_platform_webhook_deliveries_total\{outcome="delivered"\} [1-9]/,
    );
    expect(String(m.body)).toMatch(
      /editor_platform_webhook_deliveries_total\{outcome="gone"\} [1-9]/,
    );
    expect(String(m.body)).toContain('editor_platform_webhook_oldest_undelivered_age_seconds');
  });
});

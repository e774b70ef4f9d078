import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderPath } from '../../src/http/routes/ops/views/orders.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { opsLogin } from '../helpers/fixtures.ts';
import { type Jaeger, type JaegerSpan, jaegerBinary, startJaeger } from '../helpers/jaeger.ts';
import { accessOf, orderDone, type Shop, setUpShop, until } from '../helpers/orders.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const binary = jaegerBinary();
const suite = binary ? describe : describe.skip;

/**
 * Tracing against a real Jaeger (OTLP over HTTP in, its query API out), with the real
 * PostgreSQL and Temporal: a sale notification sent with the test's own traceparent is
 * one trace in Jaeger holding the POST and the append, and the events it recorded carry
 * that trace in their metadata, for the work the log starts later to continue it. No
 * attribute of any span names a key or the customer.
 */
suite('tracing (OpenTelemetry, Jaeger)', () => {
  let jaeger: Jaeger;
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let shop: Shop;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    jaeger = await startJaeger(binary!);
    receiver = await startReceiver();
    t = await startTestApp({
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
      TRACE_UI_URL: 'https://traces.example/trace/{traceId}',
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_ALLOW_HTTP: 'on',
    });
    call = client(t.url);
    shop = await setUpShop(call, accessOf(t), 1);
    const integrations = await call('GET', '/api/shop-integration', { key: shop.adminKey });
    const hook = await call('PUT', `/api/shop-integration/${integrations.body[0].id}/webhook`, {
      key: shop.adminKey,
      body: { url: receiver.url(), events: ['order.received', 'order.ready'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await jaeger?.stop();
    await receiver?.close();
  });

  const spansOf = (traceId: string, wanted: (spans: JaegerSpan[]) => boolean) =>
    until(
      `trace ${traceId} in Jaeger`,
      async () => {
        const spans = await jaeger.spans(traceId);
        return wanted(spans) ? spans : undefined;
      },
      60_000,
    );

  it("continues the caller's trace through the POST into the append, and records it with the events", async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const orderId = `TR-${randomUUID().slice(0, 8)}`;
    const customer = `Customer ${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.shopKey,
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
      body: {
        orderId,
        customer: { name: customer, email: 'buyer@example.com' },
        items: shop.projects.map((projectId, n) => ({ itemId: `l${n}`, projectId, quantity: 1 })),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);

    const spans = await spansOf(
      traceId,
      (s) =>
        s.some((x) => x.operationName === 'POST /webhook/notifyorder') &&
        s.some((x) => x.operationName === 'append'),
    );
    const post = spans.find((x) => x.operationName === 'POST /webhook/notifyorder')!;
    // a child of the caller's span: the shop's own trace goes on here
    expect(post.references).toEqual([
      expect.objectContaining({ refType: 'CHILD_OF', traceID: traceId, spanID: callerSpan }),
    ]);
    // the order's events name the trace: work that follows them from the log continues it
    const received = await t.app.db.pool.query<{ stream_id: string; traceparent: string | null }>(
      `SELECT stream_id, metadata->>'traceparent' AS traceparent FROM es_events
       WHERE type = 'OrderReceived' AND data->>'orderId' = $1`,
      [orderId],
    );
    expect(received.rows).toHaveLength(1);
    const { stream_id: stream, traceparent } = received.rows[0]!;
    // the span that appended it: an append of the order's stream
    expect(traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const append = spans.find((x) => x.spanID === traceparent!.split('-')[2]);
    expect(append?.operationName, JSON.stringify(spans.map((s) => s.operationName))).toBe('append');
    expect(append!.tags).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: 'stream.id', value: stream })]),
    );
    // under the POST (its handler's span between them)
    const byId = new Map(spans.map((x) => [x.spanID, x]));
    const ancestors: string[] = [];
    for (let up = byId.get(append!.references[0]?.spanID ?? ''); up; ) {
      ancestors.push(up.operationName);
      up = byId.get(up.references[0]?.spanID ?? '');
    }
    expect(ancestors).toContain('POST /webhook/notifyorder');
    // the command that decided it (around its read, decision and append)
    expect(ancestors[0]).toMatch(/^command [A-Z]\w+$/);
    expect(new Set(spans.map((x) => x.service))).toEqual(new Set(['editor-platform']));

    // the log carries the trace on: the reaction to the event, and the webhook that tells
    // the shop of it, whose POST names the trace for the shop to join
    const delivered = await until('order.received at the shop', async () =>
      receiver.requests.find((x) => JSON.parse(x.body).data.orderId === orderId),
    );
    expect(delivered.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const later = await spansOf(
      traceId,
      (s) =>
        s.some((x) => x.operationName === 'webhook order.received') &&
        s.some((x) => x.operationName.startsWith('react ')),
    );
    const webhook = later.find((x) => x.operationName === 'webhook order.received')!;
    expect(delivered.headers.traceparent!.split('-')[2]).toBe(webhook.spanID);
    expect(webhook.tags).toEqual(
      expect.arrayContaining([
        { key: 'server.address', type: 'string', value: new URL(receiver.url()).host },
        { key: 'http.response.status_code', type: 'int64', value: 204 },
      ]),
    );

    // the workflow (Temporal's interceptors), its activities, the render in them, and the
    // order.ready delivery: one trace from the shop's POST
    expect((await orderDone(call, shop, orderId)).status).toBe('ready');
    const ready = await until('order.ready at the shop', async () =>
      receiver.requests.find(
        (x) =>
          JSON.parse(x.body).type === 'order.ready' && JSON.parse(x.body).data.orderId === orderId,
      ),
    );
    expect(ready.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const whole = await spansOf(
      traceId,
      (s) =>
        ['render', 'preflight', 'storage put', 'project', 'webhook order.ready'].every((name) =>
          s.some((x) => x.operationName === name),
        ) &&
        s.some((x) => x.operationName.startsWith('RunWorkflow:')) &&
        s.some((x) => x.operationName.startsWith('RunActivity:')),
    );
    // the workflow under its start, each activity under the workflow's scheduling of it
    const named = (id: string | undefined) =>
      whole.find((x) => x.spanID === id)?.operationName ?? 'none';
    const run = whole.find((x) => x.operationName === 'RunWorkflow:saleNotificationWorkflow')!;
    expect(named(run.references[0]?.spanID)).toBe('StartWorkflow:saleNotificationWorkflow');
    const activities = whole.filter((x) => x.operationName.startsWith('RunActivity:'));
    for (const activity of activities) {
      const scheduled = whole.find((x) => x.spanID === activity.references[0]?.spanID);
      expect(scheduled?.operationName).toBe(
        activity.operationName.replace('RunActivity:', 'StartActivity:'),
      );
      expect(scheduled?.references[0]?.spanID).toBe(run.spanID);
    }
    const render = whole.find((x) => x.operationName === 'render')!;
    expect(render.tags).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'order.item.id' }),
        expect.objectContaining({ key: 'render.pages', value: 1 }),
      ]),
    );
    // the render process's preflight and its put of the print file, inside the render
    for (const step of ['preflight', 'storage put'])
      expect(
        whole.filter((x) => x.operationName === step).map((x) => x.references[0]?.spanID),
      ).toContain(render.spanID);
    // the append's own statement (pg's instrumentation): the SQL with placeholders only
    const insert = whole.find(
      (x) =>
        x.references[0]?.spanID === append!.spanID &&
        x.tags.some((tag) => tag.key === 'db.system.name' && tag.value === 'postgresql'),
    );
    expect(insert?.tags.find((tag) => tag.key === 'db.query.text')?.value).toMatch(
      /INSERT INTO es_events[\s\S]*\$1/,
    );
    // the read models projecting the order's first event: a child of its append, or, when
    // the batch that projected it began with another trace's event (a busy projector
    // takes several at once), a span of that trace linked to the append
    const projectedOrder = (spans: JaegerSpan[]) =>
      spans.some(
        (x) =>
          x.operationName === 'project' &&
          x.references.some((r) => r.spanID === append!.spanID) &&
          x.tags.some(
            (tag) => tag.key === 'projection.names' && String(tag.value).includes('orders'),
          ),
      );
    expect(
      projectedOrder(whole) || projectedOrder(await jaeger.allSpans('editor-platform')),
      JSON.stringify(whole.filter((x) => x.operationName === 'project')),
    ).toBe(true);

    // the ops order page links to the order's trace
    const cookie = await opsLogin(t.url, t.operatorKey);
    const opsPage = await fetch(`${t.url}${orderPath(shop.labelId, orderId)}`, {
      headers: { cookie },
    });
    expect(opsPage.status).toBe(200);
    const opsHtml = await opsPage.text();
    expect(opsHtml.match(/<dt>Workflow<\/dt>.{0,600}/s)?.[0]).toContain(
      `href="https://traces.example/trace/${traceId}" target="_blank" rel="noopener" data-trace="${traceId}"`,
    );

    // nothing secret or personal in any attribute of the trace
    const said = JSON.stringify(whole.map((s) => s.tags));
    for (const secret of [
      shop.shopKey,
      shop.adminKey,
      t.operatorKey,
      customer,
      'buyer@example.com',
    ])
      expect(said).not.toContain(secret);
  });
  it('continues the trace of the request that started a press run, and of a reprint', async () => {
    const orderId = `TRP-${randomUUID().slice(0, 8)}`;
    expect(
      (
        await call('POST', '/webhook/notifyorder', {
          key: shop.shopKey,
          body: {
            orderId,
            items: shop.projects.map((projectId, n) => ({
              itemId: `l${n}`,
              projectId,
              quantity: 1,
            })),
          },
        })
      ).status,
    ).toBe(200);
    const item = (await orderDone(call, shop, orderId)).items[0];
    /** a request in a trace of its own; the trace's spans once `wanted` holds of them */
    const traced = async (
      method: string,
      path: string,
      body: unknown,
      wanted: (spans: JaegerSpan[]) => boolean,
    ) => {
      const traceId = randomBytes(16).toString('hex');
      const r = await call(method, path, {
        key: shop.fulfillmentKey,
        headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
        body,
      });
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      return { body: r.body, spans: await spansOf(traceId, wanted) };
    };
    const ran = (name: string) => (s: JaegerSpan[]) =>
      s.some((x) => x.operationName.startsWith(`RunWorkflow:${name}`)) &&
      s.some((x) => x.operationName.startsWith('RunActivity:'));

    const batch = await traced(
      'POST',
      '/v1/production/batches',
      { items: [item.orderItemId], media: { preset: 'SRA3' }, mode: 'gang' },
      ran('impositionWorkflow'),
    );
    expect(batch.spans.map((x) => x.operationName)).toContain('POST /v1/production/batches');
    await until('the press run imposed', async () => {
      const r = await call('GET', `/v1/production/batches/${batch.body.batchId}`, {
        key: shop.fulfillmentKey,
      });
      return ['imposed', 'failed'].includes(r.body?.status) ? r.body : undefined;
    });
    const shipped = await call('POST', `/v1/orders/${orderId}/shipments`, {
      key: shop.fulfillmentKey,
      body: { carrier: 'GLS', trackingNumber: 'GLS-T1' },
    });
    expect(shipped.status, JSON.stringify(shipped.body)).toBe(201);
    const reprint = await traced(
      'POST',
      `/v1/orderitems/${item.orderItemId}/reprints`,
      { reason: 'damaged' },
      ran('reprintWorkflow'),
    );
    expect(reprint.spans.map((x) => x.operationName)).toContain(
      'POST /v1/orderitems/:orderItemId/reprints',
    );
  });

  it('records nothing of a trace its caller does not sample, its workflow included', async () => {
    const notify = (orderId: string, traceparent: string) =>
      call('POST', '/webhook/notifyorder', {
        key: shop.shopKey,
        headers: { traceparent },
        body: { orderId, items: [{ itemId: 'l0', projectId: shop.projects[0], quantity: 1 }] },
      });
    const unsampled = randomBytes(16).toString('hex');
    const notSampled = () => `00-${unsampled}-${randomBytes(8).toString('hex')}-00`;
    const quiet = `TU-${randomUUID().slice(0, 8)}`;
    const sent = await notify(quiet, notSampled());
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const item = (await orderDone(call, shop, quiet)).items[0];
    // a press run, whose workflow the request starts (the trace's context in its header)
    const batch = await call('POST', '/v1/production/batches', {
      key: shop.fulfillmentKey,
      headers: { traceparent: notSampled() },
      body: { items: [item.orderItemId], media: { preset: 'SRA3' }, mode: 'gang' },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    await until('the press run imposed', async () => {
      const r = await call('GET', `/v1/production/batches/${batch.body.batchId}`, {
        key: shop.fulfillmentKey,
      });
      return r.body?.status === 'imposed' ? r.body : undefined;
    });
    // an order sampled after them, whose workflow's spans went out later than theirs would
    const sampled = randomBytes(16).toString('hex');
    const loud = `TS-${randomUUID().slice(0, 8)}`;
    await notify(loud, `00-${sampled}-${randomBytes(8).toString('hex')}-01`);
    expect((await orderDone(call, shop, loud)).status).toBe('ready');
    await spansOf(
      sampled,
      (s) =>
        s.some((x) => x.operationName.startsWith('RunActivity:')) &&
        s.some((x) => x.operationName === 'webhook order.ready'),
    );
    expect((await jaeger.spans(unsampled)).map((x) => x.operationName)).toEqual([]);
  });

  it('starts a trace of its own for a malformed traceparent, and answers as ever', async () => {
    const bad = randomBytes(16).toString('hex');
    const span = randomBytes(8).toString('hex');
    const malformed = [
      `00-${'0'.repeat(32)}-${span}-01`, // the all-zero trace id
      `00-${bad.toUpperCase()}-${span}-01`, // upper-case hex
      `00-${bad}-${span}-01-extra`, // more fields than version 00 has
      `00-%${bad.slice(2)}-${span}-01`, // a malformed escape
      `zz-${bad}-${span}-01`,
      `00-${bad}-${'0'.repeat(16)}-01`, // the all-zero parent
    ];
    for (const traceparent of malformed) {
      const orderId = `TM-${randomUUID().slice(0, 8)}`;
      const r = await call('POST', '/webhook/notifyorder', {
        key: shop.shopKey,
        headers: { traceparent },
        body: { orderId, items: [{ itemId: 'l0', projectId: shop.projects[0], quantity: 1 }] },
      });
      expect(r.status, `${traceparent}: ${JSON.stringify(r.body)}`).toBe(200);
      const { rows } = await t.app.db.pool.query<{ traceparent: string }>(
        `SELECT metadata->>'traceparent' AS traceparent FROM es_events
         WHERE type = 'OrderReceived' AND data->>'orderId' = $1`,
        [orderId],
      );
      // a trace of the service's own, sampled: nothing of the header taken
      const own = rows[0]?.traceparent ?? '';
      expect(own, traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(own).not.toContain(bad);
      expect(own).not.toContain(`00-${'0'.repeat(32)}`);
      const traceId = own.split('-')[1]!;
      const spans = await spansOf(traceId, (x) =>
        x.some((y) => y.operationName === 'POST /webhook/notifyorder'),
      );
      const post = spans.find((x) => x.operationName === 'POST /webhook/notifyorder')!;
      expect(post.references, traceparent).toEqual([]);
    }
    // a NUL in the header never reaches the service's code: Node's HTTP parser refuses
    // the request with 400, and the service goes on answering
    const raw = await rawRequest(
      t.url,
      `POST /webhook/notifyorder HTTP/1.1\r\nHost: x\r\nx-api-key: ${shop.shopKey}\r\n` +
        `traceparent: 00-${bad}\u0000-${span}-01\r\ncontent-type: application/json\r\n` +
        'content-length: 2\r\nconnection: close\r\n\r\n{}',
    );
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).not.toContain(shop.shopKey);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
  });

  it('puts no key, secret or personal data in any span of the run', async () => {
    const all = await jaeger.allSpans('editor-platform');
    expect(all.length).toBeGreaterThan(20);
    const said = JSON.stringify(all.map((s) => [s.operationName, s.tags]));
    for (const secret of [shop.shopKey, shop.adminKey, shop.fulfillmentKey, t.operatorKey])
      expect(said).not.toContain(secret);
    expect(said).not.toMatch(/whsec_|buyer@example\.com|Customer [0-9a-f]{8}/);
  });

  // last: Jaeger does not come back
  it('goes on serving when Jaeger stops: its spans are dropped, never waited for', async () => {
    await jaeger.stop();
    const orderId = `TJ-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.shopKey,
      headers: {
        traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
      },
      body: { orderId, items: [{ itemId: 'l0', projectId: shop.projects[0], quantity: 1 }] },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await orderDone(call, shop, orderId)).status).toBe('ready');
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(200);
    const read = await call('GET', `/api/orders/${orderId}`, { key: shop.adminKey });
    expect(read.status).toBe(200);
  });
});

/** One request written by hand on a socket (what fetch refuses to send), and the whole answer. */
function rawRequest(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (answer += d));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { client, shopOfProcesses, testEnv } from '../helpers/app.ts';
import { type Jaeger, jaegerBinary, startJaeger } from '../helpers/jaeger.ts';
import { orderDone, type Shop, until } from '../helpers/orders.ts';
import { type AppProcess, spawnApp } from '../helpers/spawn-app.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const binary = jaegerBinary();
const suite = binary ? describe : describe.skip;

/**
 * One trace across processes: the API, the worker and the projector each a process of its
 * own (each its own service name in Jaeger), sharing PostgreSQL and Temporal. The trace
 * goes from one to the other through the event log's traceparent and Temporal's headers.
 */
suite('tracing with the roles apart', () => {
  let jaeger: Jaeger;
  let db: Database;
  let shop: Shop;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const procs: Record<string, AppProcess> = {};

  beforeAll(async () => {
    jaeger = await startJaeger(binary!);
    receiver = await startReceiver();
    const env = await testEnv({
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_ALLOW_HTTP: 'on',
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    const roles = ['api', 'worker', 'projector'] as const;
    const started = await Promise.all(
      roles.map((role) => spawnApp(role, { ...env, OTEL_SERVICE_NAME: `editor-${role}` })),
    );
    for (const [i, role] of roles.entries()) procs[role] = started[i]!;
    ({ db, shop } = await shopOfProcesses(procs.api!.url, env));
  }, 300_000);
  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.kill('SIGTERM')));
    await db?.close();
    await jaeger?.stop();
    await receiver?.close();
  });

  it('follows a sale notification from the API process through the worker to order.ready', async () => {
    const call = client(procs.api!.url);
    const integrations = await call('GET', '/api/shop-integration', { key: shop.adminKey });
    const hook = await call('PUT', `/api/shop-integration/${integrations.body[0].id}/webhook`, {
      key: shop.adminKey,
      body: { url: receiver.url(), events: ['order.ready'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    const traceId = randomBytes(16).toString('hex');
    const orderId = `TRR-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.shopKey,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: {
        orderId,
        items: shop.projects.map((projectId, n) => ({ itemId: `l${n}`, projectId, quantity: 1 })),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await orderDone(call, shop, orderId)).status).toBe('ready');
    const ready = await until('order.ready at the shop', async () =>
      receiver.requests.find((x) => JSON.parse(x.body).data.orderId === orderId),
    );
    expect(ready.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    // each span name with the services (processes) that made it
    const servicesOf = async () => {
      const m = new Map<string, Set<string>>();
      for (const s of await jaeger.spans(traceId))
        m.set(s.operationName, (m.get(s.operationName) ?? new Set()).add(s.service));
      return m;
    };
    const wanted = ['POST /webhook/notifyorder', 'render', 'storage put', 'project'];
    const where = await until(
      'the trace from every process in Jaeger',
      async () => {
        const m = await servicesOf();
        return [...wanted, 'webhook order.ready'].every((name) => m.has(name)) &&
          m.get('project')!.has('editor-projector')
          ? m
          : undefined;
      },
      60_000,
    );
    expect([...where.get('POST /webhook/notifyorder')!]).toEqual(['editor-api']);
    expect([...where.get('render')!]).toEqual(['editor-worker']);
    expect([...where.get('storage put')!]).toEqual(['editor-worker']);
    expect(where.get('project')).toContain('editor-projector');
  });
});

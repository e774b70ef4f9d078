import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { StartOptions } from '../../src/bootstrap/start.ts';
import { connectPostgres, type Database } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { type LocalTemporal, startLocalTemporal } from '../../src/temporal/dev-server.ts';
import { client, joiningEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  expectOnlyPrintFiles,
  notify,
  orderDone,
  printFilesPerItem,
  type Shop,
  setUpShop,
  until,
} from '../helpers/orders.ts';
import {
  createDatabase,
  type PostgresCluster,
  startPostgresCluster,
} from '../helpers/postgres-cluster.ts';
import { type AppProcess, spawnApp } from '../helpers/spawn-app.ts';

/** The figures a fault run gives, for the fault table of the closing note. */
function report(fault: string, figures: Record<string, number | string>) {
  console.log(`[fault] ${fault} ${JSON.stringify(figures)}`);
}

interface Readiness {
  status: 'ready' | 503;
  checks: Record<string, { ok: boolean; error?: string }>;
}

const ready = async (url: string) => {
  const r = await fetch(`${url}/readyz`).catch(() => undefined);
  return r ? { status: r.status, body: (await r.json()) as Readiness } : undefined;
};

/**
 * A Temporal dev server of its own (its state in a file, so it can be killed and started
 * again), the API and projector in one app and the worker (and its reactor) in another,
 * both against it, and a shop.
 */
async function splitAroundTemporal(
  workerEnv: Record<string, string> = {},
  wrapActivities?: StartOptions['wrapActivities'],
) {
  const taskQueue = `outage-${randomUUID()}`;
  const temporal = await startLocalTemporal({
    cliPath: process.env.TEMPORAL_CLI_PATH,
    dbFile: path.join(mkdtempSync(path.join(os.tmpdir(), 'temporal-')), 'temporal.sqlite'),
  });
  const api = await startTestApp(
    { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: taskQueue },
    { roles: ['api', 'projector'] },
  );
  const worker = await startTestApp(
    {
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATABASE_URL: api.config.databaseUrl!,
      DATA_DIR: api.config.dataDir,
      OPERATOR_API_KEY: api.operatorKey,
      EDITOR_TOKEN_SECRET: api.editorTokenSecret,
      ...workerEnv,
    },
    { roles: ['worker'], ...(wrapActivities ? { wrapActivities } : {}) },
  );
  const shop = await setUpShop(client(api.url), {
    operatorKey: api.operatorKey,
    editorTokenSecret: api.editorTokenSecret,
    store: api.app.store,
    pool: api.app.db.pool,
  });
  return { temporal, api, worker, shop };
}

describe('Temporal stopped and started again', () => {
  let temporal: LocalTemporal;
  let api: TestApp;
  let worker: TestApp;
  let shop: Shop;

  beforeAll(async () => {
    ({ temporal, api, worker, shop } = await splitAroundTemporal({
      RECONCILE_INTERVAL_MS: '2000',
    }));
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await temporal?.stop();
  });

  it('accepts orders while it is down, says so in /readyz, and prints them when it is back, unasked', async () => {
    const call = client(api.url);
    expect((await ready(worker.app.healthUrl!))?.status).toBe(200);
    await temporal.kill();
    const downAt = Date.now();
    const orderIds = [1, 2, 3].map((n) => `DOWN-${n}-${randomUUID().slice(0, 6)}`);
    for (const orderId of orderIds) expect(await notify(call, shop, orderId)).toBe(200);
    // the worker role's readiness and the API's both say what is wrong
    const workerDown = await until('the worker role to be not ready', async () => {
      const r = await ready(worker.app.healthUrl!);
      return r?.status === 503 ? r.body : undefined;
    });
    expect(workerDown.checks.temporal).toEqual({ ok: false, error: 'Temporal does not answer' });
    const apiDown = await ready(api.url);
    expect(apiDown?.status).toBe(503);
    expect(apiDown?.body.checks.temporal?.ok).toBe(false);
    // longer than the SDK's own patience with an unreachable server
    const outageMs = 20_000;
    await new Promise((r) => setTimeout(r, outageMs - (Date.now() - downAt)));
    for (const orderId of orderIds) {
      const r = await call('GET', `/api/orders/${orderId}`, { key: shop.adminKey });
      expect(r.body.status).toBe('received');
    }
    await temporal.restart();
    const backAt = Date.now();
    for (const orderId of orderIds)
      expect((await orderDone(call, shop, orderId)).status).toBe('ready');
    const recoveryMs = Date.now() - backAt;
    expect((await printFilesPerItem(api.app.db.pool, shop.labelId)).every((n) => n === 1)).toBe(
      true,
    );
    await until('both roles to be ready again', async () => {
      const [a, w] = [await ready(api.url), await ready(worker.app.healthUrl!)];
      return a?.status === 200 && w?.status === 200 ? true : undefined;
    });
    report('Temporal down 20 s', {
      orders: orderIds.length,
      ready: orderIds.length,
      lost: 0,
      doubled: 0,
      recoveryMs,
    });
  }, 240_000);
});

describe('Temporal killed while an order renders', () => {
  let temporal: LocalTemporal;
  let api: TestApp;
  let worker: TestApp;
  let shop: Shop;
  /** the renders (local activities of the order's workflow) wait here until it opens */
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  let renders = 0;

  beforeAll(async () => {
    ({ temporal, api, worker, shop } = await splitAroundTemporal({}, (a) => ({
      ...a,
      async printOrderItem(...args: Parameters<typeof a.printOrderItem>) {
        renders++;
        await opened;
        return a.printOrderItem(...args);
      },
    })));
  }, 180_000);
  afterAll(async () => {
    open();
    await worker?.stop();
    await api?.stop();
    await temporal?.stop();
  });

  it('records each file once, and the workflow ends once Temporal is back', async () => {
    const call = client(api.url);
    const orderId = `KILLED-${randomUUID().slice(0, 6)}`;
    expect(await notify(call, shop, orderId)).toBe(200);
    await until('the renders to begin', async () => (renders >= 1 ? true : undefined));
    // killed (-9) while the workflow's task waits for its renders: what they record
    // cannot reach it
    await temporal.kill();
    open();
    const downAt = Date.now();
    const order = await orderDone(call, shop, orderId);
    expect(order.status).toBe('ready');
    // down longer than the workflow task's timeout (10 s): the task that waited for the
    // renders is lost, and the workflow runs it again, whose renders find their files
    // recorded (or the worker's answer, retried all along, is still taken)
    await new Promise((r) => setTimeout(r, 12_000 - (Date.now() - downAt)));
    await temporal.restart();
    const backAt = Date.now();
    const handle = worker.app.temporal!.client.workflow.getHandle(
      `order:${shop.labelId}:${orderId}`,
    );
    const result = await until(
      'the workflow to complete',
      async () => {
        const d = await handle.describe().catch(() => undefined);
        return d?.status.name === 'COMPLETED' ? handle.result() : undefined;
      },
      120_000,
      500,
    );
    expect(result).toEqual({ status: 'ready' });
    expect(await printFilesPerItem(api.app.db.pool, shop.labelId)).toEqual(
      shop.projects.map(() => 1),
    );
    expectOnlyPrintFiles(await api.app.storage.list(shop.labelId), shop.labelId, order);
    report('Temporal killed (-9) during a render', {
      items: shop.projects.length,
      renderCalls: renders,
      doubled: 0,
      completedAfterMs: Date.now() - backAt,
    });
  }, 240_000);
});

describe('a process killed between recording an order and starting its workflow', () => {
  let t: TestApp;
  let child: AppProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    // the API and projector here; the worker role (with the reactor) in a child process
    t = await startTestApp({}, { roles: ['api', 'projector'] });
    env = {
      ...joiningEnv(t),
      PORT: '0',
    };
  }, 120_000);
  afterAll(async () => {
    await child?.kill();
    await t?.stop();
  });

  it('is printed after the restart, one print file per item', async () => {
    child = await spawnApp('worker', { ...env, FAULT_STALL_WORKFLOW_STARTS: 'order' });
    const call = client(t.url);
    const shop = await setUpShop(call, {
      operatorKey: t.operatorKey,
      editorTokenSecret: t.editorTokenSecret,
      store: t.app.store,
      pool: t.app.db.pool,
    });
    const orderId = `KILLED-${randomUUID().slice(0, 8)}`;
    expect(await notify(call, shop, orderId)).toBe(200);
    await child.waitFor('stalled order', 30_000);
    await child.kill('SIGKILL');
    expect((await call('GET', `/api/orders/${orderId}`, { key: shop.adminKey })).body.status).toBe(
      'received',
    );
    const restartedAt = Date.now();
    child = await spawnApp('worker', env);
    const order = await orderDone(call, shop, orderId);
    expect(order.status).toBe('ready');
    expect(await printFilesPerItem(t.app.db.pool, shop.labelId)).toEqual([1, 1]);
    const files = await t.app.storage.list(shop.labelId);
    expectOnlyPrintFiles(files, shop.labelId, order);
    report('kill -9 between append and workflow start', {
      orders: 1,
      ready: 1,
      lost: 0,
      doubled: 0,
      recoveryMs: Date.now() - restartedAt,
    });
  }, 240_000);
});

describe('PostgreSQL restarted and stopped under load', () => {
  let cluster: PostgresCluster;
  let app: AppProcess;
  let db: Database;
  let shop: Shop;
  const operatorKey = randomBytes(32).toString('base64url');
  const editorTokenSecret = randomBytes(32).toString('base64url');

  beforeAll(async () => {
    // durable: with synchronous_commit off an immediate stop loses commits already answered
    cluster = await startPostgresCluster({ durable: true });
    const url = await createDatabase(cluster.url);
    app = await spawnApp('all', {
      DATABASE_URL: url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `pg-${randomUUID()}`,
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pg-outage-')),
      OPERATOR_API_KEY: operatorKey,
      EDITOR_TOKEN_SECRET: editorTokenSecret,
      PORT: '0',
      RECONCILE_INTERVAL_MS: '2000',
    });
    db = await connectPostgres(url, 4);
    shop = await setUpShop(client(app.url), {
      operatorKey,
      editorTokenSecret,
      store: new PostgresEventStore(db.pool),
      pool: db.pool,
    });
  }, 180_000);
  afterAll(async () => {
    await app?.kill('SIGTERM');
    await db?.close();
    cluster?.stop();
  });

  it('survives 10 restarts under reads, notifications and price imports: no exit, every order ready, read models caught up', async () => {
    const call = client(app.url);
    const statuses = new Map<number, number>();
    const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const accepted: string[] = [];
    let stop = false;
    const load = (async () => {
      for (let i = 0; !stop; i++) {
        const orderId = `PG-${i}-${randomUUID().slice(0, 6)}`;
        // a shop whose notification got 503 sends it again, as it is told to
        for (let attempt = 0; attempt < 50 && !stop; attempt++) {
          const s = await notify(call, shop, orderId).catch(() => 0);
          count(s);
          if (s === 200) {
            accepted.push(orderId);
            break;
          }
          await new Promise((r) => setTimeout(r, 200));
        }
        const reads = await Promise.all([
          call('GET', '/api/shop-integration', { key: shop.adminKey }),
          call('GET', `/api/orders/${accepted.at(-1) ?? 'none'}`, { key: shop.adminKey }),
          call('POST', '/api/price/import', {
            key: shop.adminKey,
            body: {
              currency: 'EUR',
              prices: [
                { sku: shop.sku, supplier: 'supplier-a', minQuantity: 1 + i, unitPrice: '1.00' },
              ],
            },
          }),
        ]).catch(() => []);
        for (const r of reads) count(r.status);
      }
    })();
    for (let n = 0; n < 10; n++) {
      await new Promise((r) => setTimeout(r, 1500));
      cluster.halt('immediate');
      await new Promise((r) => setTimeout(r, 300 + n * 70));
      cluster.resume();
    }
    await new Promise((r) => setTimeout(r, 2000));
    stop = true;
    await load;
    expect(app.alive()).toBe(true);
    // every answer is a success or 503 (retry); a read of an order just accepted may be 404
    // while the read model is held up by a restart
    expect([...statuses.keys()].filter((s) => ![200, 201, 404, 503].includes(s))).toEqual([]);
    expect(accepted.length).toBeGreaterThan(5);
    const began = Date.now();
    try {
      for (const orderId of accepted)
        expect((await orderDone(call, shop, orderId)).status).toBe('ready');
    } catch (err) {
      // what the operator would look at first
      const subs = await call('GET', '/operator/projections', { key: operatorKey });
      console.log(JSON.stringify(subs.body), app.output().slice(-4000));
      throw err;
    }
    const recoveryMs = Date.now() - began;
    const perItem = await printFilesPerItem(db.pool, shop.labelId);
    expect(perItem.every((n) => n === 1)).toBe(true);
    expect(perItem).toHaveLength(accepted.length * shop.projects.length);
    const caughtUp = await until('every projection and reactor to catch up', async () => {
      const r = await call('GET', '/operator/projections', { key: operatorKey });
      return r.status === 200 &&
        r.body.every((p: { behind: number; failing: unknown }) => p.behind === 0 && !p.failing)
        ? r.body
        : undefined;
    });
    expect(caughtUp.every((p: { parked: number }) => p.parked === 0)).toBe(true);
    report('PostgreSQL restarted 10 times under load', {
      orders: accepted.length,
      ready: accepted.length,
      lost: 0,
      doubled: perItem.filter((n) => n > 1).length,
      answers: JSON.stringify(Object.fromEntries(statuses)),
      recoveryMs,
    });
  }, 300_000);

  it('answers 503 with Retry-After while it is stopped for 10 s, and recovers by itself', async () => {
    const call = client(app.url);
    cluster.halt('fast');
    const stoppedAt = Date.now();
    try {
      const r = await until(
        'a 503 answer',
        async () => {
          const x = await call('GET', '/api/shop-integration', { key: shop.adminKey });
          return x.status === 503 ? x : undefined;
        },
        10_000,
      );
      expect(r.headers.get('retry-after')).toBe('5');
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ status: 503, code: 'service_unavailable' });
      const write = await notify(call, shop, `STOPPED-${randomUUID().slice(0, 6)}`);
      expect(write).toBe(503);
      const notReady = await ready(app.url);
      expect(notReady?.status).toBe(503);
      expect(notReady?.body.checks.database).toMatchObject({ ok: false });
      expect(notReady?.body.checks.database?.error).toMatch(/database does not answer/);
      await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - stoppedAt))));
    } finally {
      cluster.resume();
    }
    const resumedAt = Date.now();
    await until(
      'requests to succeed again',
      async () => {
        const x = await call('GET', '/api/shop-integration', { key: shop.adminKey });
        return x.status === 200 ? true : undefined;
      },
      60_000,
    );
    const requestsBackMs = Date.now() - resumedAt;
    await until(
      '/readyz to be 200 again',
      async () => ((await ready(app.url))?.status === 200 ? true : undefined),
      60_000,
    );
    const orderId = `AFTER-STOP-${randomUUID().slice(0, 6)}`;
    expect(await notify(call, shop, orderId)).toBe(200);
    expect((await orderDone(call, shop, orderId)).status).toBe('ready');
    expect(app.alive()).toBe(true);
    report('PostgreSQL stopped 10 s', {
      orders: 1,
      ready: 1,
      lost: 0,
      doubled: 0,
      recoveryMs: requestsBackMs,
      readyAgainMs: Date.now() - resumedAt,
    });
  }, 180_000);
});

describe('readiness of the projector role', () => {
  let t: TestApp;
  let projector: TestApp;

  beforeAll(async () => {
    t = await startTestApp({}, { roles: ['api', 'worker'] });
    projector = await startTestApp(
      {
        DATABASE_URL: t.config.databaseUrl!,
        TEMPORAL_TASK_QUEUE: t.config.temporal.taskQueue,
        OPERATOR_API_KEY: t.operatorKey,
        EDITOR_TOKEN_SECRET: t.editorTokenSecret,
      },
      { roles: ['projector'] },
    );
  }, 120_000);
  afterAll(async () => {
    await projector?.stop();
    await t?.stop();
  });

  it('turns 503 with the reason when a projection is stopped, and 200 once it runs again', async () => {
    const call = client(t.url);
    expect((await ready(projector.app.healthUrl!))?.status).toBe(200);
    expect((await fetch(`${projector.app.healthUrl}/livez`)).status).toBe(200);
    const admin = new pg.Client({ connectionString: t.config.databaseUrl });
    await admin.connect();
    try {
      // the labels read model's table gone: the projection cannot apply (and must not park)
      await admin.query('ALTER TABLE rm_labels RENAME TO rm_labels_away');
      const created = await call('POST', '/operator/labels', {
        key: t.operatorKey,
        body: { name: 'While stopped', partnerId: 700_000 + Math.floor(Math.random() * 100_000) },
      });
      expect(created.status).toBe(201);
      const r = await until(
        'the projector to be not ready',
        async () => {
          const x = await ready(projector.app.healthUrl!);
          return x?.status === 503 ? x.body : undefined;
        },
        30_000,
      );
      expect(r.checks.projections!.error).toMatch(
        /projection labels cannot advance since .*rm_labels/,
      );
      await admin.query('ALTER TABLE rm_labels_away RENAME TO rm_labels');
      await until('the projector to be ready again', async () =>
        (await ready(projector.app.healthUrl!))?.status === 200 ? true : undefined,
      );
      const row = await admin.query('SELECT 1 FROM rm_labels WHERE label_id = $1', [
        created.body.labelId,
      ]);
      expect(row.rowCount).toBe(1);
      const parked = await admin.query('SELECT count(*)::int AS n FROM parked_events');
      expect(parked.rows[0].n).toBe(0);
    } finally {
      await admin.end();
    }
  }, 120_000);

  it('serves its metrics on the health port, to the operator key only', async () => {
    const url = `${projector.app.healthUrl}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    const r = await fetch(url, { headers: { 'x-api-key': t.operatorKey } });
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text).toMatch(
      /^editor_platform_subscription_lag_events\{subscription="labels",kind="projection"\} \d+/m,
    );
    expect(text).toMatch(
      /^editor_platform_parked_events\{subscription="orders",kind="projection"\} 0/m,
    );
    // the projector reads no orders: those gauges are the API's
    expect(text).not.toContain('editor_platform_orders{');
  });
});

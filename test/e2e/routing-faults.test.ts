import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/database.ts';
import { client, joiningEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import { EVERY_DAY, raceSales, registerFacility, saveProject } from '../helpers/facilities.ts';
import { config, editorUser, importCatalog } from '../helpers/fixtures.ts';
import { until } from '../helpers/orders.ts';

/**
 * Routing runs beside the projections, in the projector role: killed with SIGKILL while
 * it routes twenty racing sales into a facility that makes five a day, and started
 * again, it routes every item exactly once, and no day takes more than its five.
 */
describe('the projector killed while it routes', () => {
  let t: TestApp;
  let projector: ChildProcess | undefined;
  let out = '';
  let projectorPort = 0;

  const startProjector = async () => {
    const port = await freePort();
    projectorPort = port;
    out = '';
    const p = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--role', 'projector'], {
      env: { ...process.env, ...joiningEnv(t), PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    p.stdout!.on('data', (d) => (out += d));
    p.stderr!.on('data', (d) => (out += d));
    projector = p;
    await until(
      'the projector to be live',
      async () => {
        if (p.exitCode !== null) throw new Error(`projector exited:\n${out.slice(-2000)}`);
        const r = await fetch(`http://127.0.0.1:${port}/livez`).catch(() => undefined);
        return r?.status === 200 ? true : undefined;
      },
      60_000,
    );
  };

  beforeAll(async () => {
    // the API and the worker here; the projections and routing in a process of their own
    t = await startTestApp({}, { roles: ['api', 'worker'] });
    await startProjector();
  }, 120_000);
  afterAll(async () => {
    projector?.kill('SIGKILL');
    await t?.stop();
  });

  it('routes every item once after the restart, five a day', async () => {
    const call = client(t.url);
    const label = await call('POST', '/operator/labels', {
      key: t.operatorKey,
      body: { name: 'Routing crash' },
    });
    expect(label.status).toBe(201);
    const admin = label.body.adminApiKey;
    const tag = randomUUID().slice(0, 6);
    await importCatalog(call, t, 'supplier-a', [
      config(`EMB-${tag}`, { printMethod: 'embroidery' }),
    ]);
    const shop = await call('POST', '/api/shop-integration', {
      key: admin,
      body: { name: 'Shop', shopSystem: 'test', shopUrl: 'https://shop.example' },
    });
    await registerFacility(call, admin, {
      name: 'Lisbon',
      country: 'PT',
      timezone: 'Europe/Lisbon',
      capabilities: { printMethods: ['embroidery'] },
      capacity: { itemsPerDay: 5 },
      workingDays: EVERY_DAY,
    });
    const { token } = await editorUser(t, label.body.labelId, `u-${randomUUID()}`);
    const projectId = await saveProject(call, token, `EMB-${tag}`, 'p');

    const ids = Array.from({ length: 20 }, (_, n) => `CRASH-${tag}-${n}`);
    await raceSales(call, shop.body.apiKey, projectId, ids, {
      name: 'A',
      line1: 'Rua 1',
      city: 'Lisboa',
      postalCode: '1100-148',
      country: 'PT',
    });
    const pool = t.app.db.pool;
    const routedCount = async () =>
      Number(
        (
          await pool.query(
            "SELECT count(*) AS n FROM es_events WHERE type = 'ItemRouted' AND stream_id LIKE $1",
            [`Order-${label.body.labelId}-%`],
          )
        ).rows[0].n,
      );
    // killed once it has routed a few: one day's capacity is partly taken by it
    await until('the first routings', async () => ((await routedCount()) >= 3 ? true : undefined));
    const gone = once(projector!, 'exit');
    projector!.kill('SIGKILL');
    await gone;
    const before = await routedCount();
    await startProjector();
    const all = await until(
      'every item routed',
      async () => {
        const r = await pool.query<{ item: string; n: string; day: string }>(
          `SELECT data->>'orderItemId' AS item, count(*) AS n, max(data->>'day') AS day
           FROM es_events WHERE type = 'ItemRouted' AND stream_id LIKE $1 GROUP BY 1`,
          [`Order-${label.body.labelId}-%`],
        );
        return r.rows.length === ids.length ? r.rows : undefined;
      },
      120_000,
    );
    // every item once, whatever the crash cut short
    expect(all.map((r) => Number(r.n))).toEqual(ids.map(() => 1));
    const perDay = new Map<string, number>();
    for (const r of all) perDay.set(r.day, (perDay.get(r.day) ?? 0) + 1);
    expect([...perDay.values()]).toEqual([5, 5, 5, 5]);
    // the crash cut the work short: the restarted process did the rest
    expect(before).toBeLessThan(ids.length);
    // the projector's readiness answers for routing too, green once it has caught up
    const ready = await until('the projector to be ready', async () => {
      const r = await fetch(`http://127.0.0.1:${projectorPort}/readyz`);
      const body = (await r.json()) as { checks: Record<string, { ok: boolean }> };
      return r.status === 200 ? body : undefined;
    });
    expect(ready.checks.routing).toEqual({ ok: true });
  }, 300_000);
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, joiningEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import { accessOf, orderDone, type Shop, setUpShop, until } from '../helpers/orders.ts';
import { type AppProcess, spawnApp } from '../helpers/spawn-app.ts';

type Placement = { orderItemId: string; copy: number };

/**
 * A press run whose worker is killed (kill -9) twice: once between recording the batch
 * and starting its imposition, once while it takes and imposes the items. Started again,
 * the batch ends imposed, every copy placed once, every item taken once, nothing recorded
 * twice.
 */
describe('a worker killed during a press run', () => {
  let t: TestApp;
  let worker: AppProcess | undefined;
  let env: Record<string, string>;
  let shop: Shop;
  let call: ReturnType<typeof client>;

  beforeAll(async () => {
    // the API and projector here; the worker role (reactor, workflows) in a child process
    t = await startTestApp({}, { roles: ['api', 'projector'] });
    env = {
      ...joiningEnv(t),
      PORT: '0',
    };
    worker = await spawnApp('worker', env);
    call = client(t.url);
    shop = await setUpShop(call, accessOf(t), 2);
  }, 180_000);
  afterAll(async () => {
    await worker?.kill();
    await t?.stop();
  });

  it('imposes every copy once after two kills, each item taken once', async () => {
    const items: { orderItemId: string; quantity: number }[] = [];
    for (let o = 0; o < 6; o++) {
      const orderId = `K-${randomUUID().slice(0, 8)}`;
      const r = await call('POST', '/webhook/notifyorder', {
        key: shop.shopKey,
        body: {
          orderId,
          items: shop.projects.map((projectId, n) => ({
            itemId: `i${n}`,
            projectId,
            quantity: 1 + ((o + n) % 3),
          })),
        },
      });
      expect(r.status).toBe(200);
      const done = await orderDone(call, shop, orderId, 180_000);
      expect(done.status).toBe('ready');
      for (const [n, i] of (done.items as { orderItemId: string }[]).entries())
        items.push({ orderItemId: i.orderItemId, quantity: 1 + ((o + n) % 3) });
    }
    await worker!.kill();
    worker = await spawnApp('worker', { ...env, FAULT_STALL_WORKFLOW_STARTS: 'imposition' });
    const opened = await call('POST', '/v1/production/batches', {
      key: shop.fulfillmentKey,
      body: { items: items.map((i) => i.orderItemId), media: { preset: 'SRA3' }, mode: 'gang' },
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(202);
    const { batchId } = opened.body;
    // killed between the append and the workflow's start
    await worker.waitFor('stalled imposition', 30_000);
    await worker.kill('SIGKILL');
    const batch = async () =>
      (await call('GET', `/v1/production/batches/${batchId}`, { key: shop.fulfillmentKey })).body;
    expect((await batch()).status).toBe('claiming');

    // started again, and killed as soon as it has taken the items (while it imposes them)
    worker = await spawnApp('worker', env);
    const seen = await until(
      'the items taken',
      async () => {
        const b = await batch();
        return b.status === 'claiming' ? undefined : b.status;
      },
      60_000,
      20,
    );
    await worker.kill('SIGKILL');
    const restartedAt = Date.now();
    worker = await spawnApp('worker', env);
    const done = await until(
      'the batch imposed',
      async () => {
        const b = await batch();
        return b.status === 'imposed' ? b : undefined;
      },
      120_000,
    );
    const placed = done.sheets.flatMap((s: { placements: Placement[] }) => s.placements);
    const copies = items.reduce((a, i) => a + i.quantity, 0);
    expect(placed).toHaveLength(copies);
    expect(new Set(placed.map((p: Placement) => `${p.orderItemId}/${p.copy}`)).size).toBe(copies);
    const types = await t.app.db.pool.query<{ type: string; n: number }>(
      `SELECT type, count(*)::int AS n FROM es_events WHERE stream_id = $1 GROUP BY type`,
      [`Batch-${batchId}`],
    );
    const count = Object.fromEntries(types.rows.map((r) => [r.type, r.n]));
    expect(count).toMatchObject({ BatchRequested: 1, BatchItemsClaimed: 1, BatchImposed: 1 });
    const taken = await t.app.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM es_events WHERE type = 'OrderItemBatched' AND data->>'batchId' = $1`,
      [batchId],
    );
    expect(taken.rows[0]!.n).toBe(items.length);
    console.log(
      `[fault] kill -9 before the imposition's start and at "${seen}" ${JSON.stringify({ items: items.length, copies, sheets: done.sheetCount, recoveryMs: Date.now() - restartedAt })}`,
    );
  }, 420_000);
});

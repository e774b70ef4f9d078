import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, joiningEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import { exportLog, jsonFiles, verifier } from '../helpers/audit.ts';
import { type Label, newIntegration, newLabel } from '../helpers/fixtures.ts';
import { until } from '../helpers/orders.ts';
import { type AppProcess, spawnApp } from '../helpers/spawn-app.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const save = jsonFiles('audit-daily-');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Each label's shops get the day's signed tree head (webhook `audit.tree_head`) once a
 * UTC day, from a projector process over real HTTP, PostgreSQL and Temporal: the head a
 * shop receives verifies with the public keys against a tree made from scratch from the
 * exported log; rounds every 200 ms and a projector killed with SIGKILL and started again
 * publish nothing twice; a shop whose endpoint takes other types gets no POST but finds
 * the head in its pull feed; a label without shops has none.
 */
describe("the audit log's daily tree head", () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let call: ReturnType<typeof client>;
  let projector: AppProcess | undefined;
  let a: Label;
  let b: Label;
  let c: Label;
  const shops: Record<string, { id: string; apiKey: string }> = {};

  beforeAll(async () => {
    receiver = await startReceiver();
    // this process publishes none: the projector started in the test does
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_ALLOW_HTTP: 'on',
      AUDIT_DAILY_HEAD_CHECK_MS: '0',
      AUDIT_HEAD_INTERVAL_MS: '200',
    });
    call = client(t.url);
    a = await newLabel(call, t, 'Heads A');
    b = await newLabel(call, t, 'Heads B');
    c = await newLabel(call, t, 'Heads C');
    for (const [name, label, events] of [
      ['a1', a, undefined],
      ['a2', a, ['order.received']],
      ['b1', b, undefined],
    ] as const) {
      shops[name] = await newIntegration(call, t, label.adminApiKey, false);
      const hook = await call('PUT', `/api/shop-integration/${shops[name]!.id}/webhook`, {
        key: label.adminApiKey,
        body: { url: receiver.url(`/${name}`), ...(events ? { events } : {}) },
      });
      expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await projector?.kill();
    await t?.stop();
    await receiver?.close();
  });

  const heads = (at: string) =>
    receiver.requests.filter((r) => r.path === at && JSON.parse(r.body).type === 'audit.tree_head');
  const projectorEnv = () => ({ ...joiningEnv(t), AUDIT_DAILY_HEAD_CHECK_MS: '200' });

  it("sends each label's shops the day's head once, which verifies against the exported log", async () => {
    projector = await spawnApp('projector', projectorEnv());
    const [toA] = await until('the head at shop a1', async () => {
      const got = heads('/a1');
      return got.length > 0 ? got : undefined;
    });
    await until('the head at shop b1', async () => (heads('/b1').length > 0 ? true : undefined));
    // rounds go on every 200 ms; a projector killed and started again finds the day done
    await sleep(1_500);
    await projector.kill('SIGKILL');
    projector = await spawnApp('projector', projectorEnv());
    await sleep(1_500);
    expect(heads('/a1')).toHaveLength(1);
    expect(heads('/b1')).toHaveLength(1);
    // a2's endpoint takes order.received only
    expect(receiver.requests.filter((r) => r.path === '/a2')).toHaveLength(0);
    const streams = await t.app.db.pool.query<{ stream_id: string; n: string }>(
      `SELECT stream_id, count(*)::text AS n FROM es_events
       WHERE stream_id LIKE 'AuditTreeHeads-%' GROUP BY stream_id ORDER BY stream_id`,
    );
    expect(streams.rows).toEqual(
      [a, b]
        .map((l) => ({ stream_id: `AuditTreeHeads-${l.labelId}`, n: '1' }))
        .sort((x, y) => x.stream_id.localeCompare(y.stream_id)),
    );
    expect(streams.rows.map((r) => r.stream_id)).not.toContain(`AuditTreeHeads-${c.labelId}`);

    const message = JSON.parse(toA!.body);
    expect(message.data.day).toBe(new Date().toISOString().slice(0, 10));
    expect(Object.keys(message.data).sort()).toEqual(
      ['day', 'keyId', 'rootHash', 'signature', 'timestamp', 'treeSize'].sort(),
    );
    // the head as a shop keeps it, checked offline against a tree made from scratch
    const keys = save(
      'keys.json',
      (await call('GET', '/api/audit/public-keys', { key: a.adminApiKey })).body,
    );
    const head = save('head.json', message.data);
    const file = path.join(path.dirname(head), 'log.ndjson');
    exportLog(joiningEnv(t), file);
    const checked = verifier('--log', file, '--head', head, '--public-keys', keys);
    expect(checked.code, checked.said).toBe(0);
    const forged = save('forged.json', { ...message.data, rootHash: 'f'.repeat(64) });
    expect(verifier('--log', file, '--head', forged, '--public-keys', keys).code).toBe(1);
  }, 180_000);

  it("lists the head in every shop's pull feed of its label, and its delivery names no order", async () => {
    const sent = heads('/a1')[0]!;
    for (const shop of [shops.a1!, shops.a2!]) {
      const feed = await until('the head in the feed', async () => {
        const r = await call('GET', '/api/events?limit=1000', { key: shop.apiKey });
        expect(r.status).toBe(200);
        const found = r.body.events.filter((m: { type: string }) => m.type === 'audit.tree_head');
        return found.length > 0 ? found : undefined;
      });
      expect(feed.map((m: { id: string }) => m.id)).toEqual([sent.id]);
    }
    const other = await call('GET', '/api/events?limit=1000', { key: shops.b1!.apiKey });
    expect(other.body.events.map((m: { id: string }) => m.id)).not.toContain(sent.id);
    const deliveries = await until('the delivery in the log', async () => {
      const r = await call('GET', `/api/shop-integration/${shops.a1!.id}/webhook/deliveries`, {
        key: a.adminApiKey,
      });
      const done = r.body.filter?.((d: { status: string }) => d.status === 'delivered');
      return done?.length > 0 ? r.body : undefined;
    });
    expect(deliveries).toEqual([
      expect.objectContaining({
        messageId: sent.id,
        type: 'audit.tree_head',
        orderId: null,
        status: 'delivered',
      }),
    ]);
  }, 120_000);
});

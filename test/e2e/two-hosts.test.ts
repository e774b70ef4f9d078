import { createHash, randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { workflowResult } from '../helpers/fixtures.ts';
import { type Minio, minioBinary, startMinio } from '../helpers/minio.ts';
import { accessOf, orderDone, type Shop, setUpShop } from '../helpers/orders.ts';

/**
 * Two hosts rehearsed on one machine: two services (API and worker each), each with a
 * DATA_DIR of its own, one PostgreSQL, one Temporal task queue, one MinIO. Orders are
 * rendered by whichever worker takes them; every print file downloads from both APIs
 * with the sha256 the order reports, and a replay asked of the other host is
 * byte-identical.
 */
const binary = minioBinary();
const suite = binary ? describe : describe.skip;

suite(`two hosts sharing S3 storage${binary ? '' : ' (no MinIO binary)'}`, () => {
  let minio: Minio;
  let a: TestApp;
  let b: TestApp;
  let shop: Shop;

  beforeAll(async () => {
    minio = await startMinio(binary!);
    const bucket = await minio.bucket();
    const s3 = {
      STORAGE_URL: `s3://${bucket.bucket}/hosts?endpoint=${encodeURIComponent(minio.endpoint)}`,
      S3_ACCESS_KEY_ID: minio.accessKeyId,
      S3_SECRET_ACCESS_KEY: minio.secretAccessKey,
    };
    a = await startTestApp(s3);
    b = await startTestApp(
      {
        ...s3,
        DATABASE_URL: a.config.databaseUrl!,
        TEMPORAL_TASK_QUEUE: a.config.temporal.taskQueue,
        OPERATOR_API_KEY: a.operatorKey,
        EDITOR_TOKEN_SECRET: a.editorTokenSecret,
      },
      { roles: ['api', 'worker'] },
    );
    expect(b.config.dataDir).not.toBe(a.config.dataDir);
    shop = await setUpShop(client(a.url), accessOf(a), 2);
  }, 240_000);
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await minio?.stop();
  });

  it('renders on either worker, downloads from either API, replays byte-identical on the other', async () => {
    const ids = Array.from({ length: 6 }, () => `H-${randomUUID().slice(0, 8)}`);
    const callA = client(a.url);
    const callB = client(b.url);
    for (const [i, orderId] of ids.entries()) {
      // notified on alternating hosts
      const call = i % 2 ? callB : callA;
      const r = await call('POST', '/webhook/notifyorder', {
        key: shop.shopKey,
        body: {
          orderId,
          items: shop.projects.map((projectId, n) => ({ itemId: `l${n}`, projectId, quantity: 1 })),
        },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    for (const orderId of ids) {
      const order = await orderDone(callA, shop, orderId);
      expect(order.status).toBe('ready');
      for (const item of order.items) {
        const file = item.printFiles[0];
        for (const base of [a.url, b.url]) {
          const res = await fetch(
            `${base}/api/orderitem/${item.orderItemId}/printfile?sha256=${file.sha256}`,
            {
              headers: { 'x-api-key': shop.adminKey },
            },
          );
          expect(res.status).toBe(200);
          const bytes = Buffer.from(await res.arrayBuffer());
          expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
        }
      }
    }
    // no print file on either host's disk: they are all in the bucket
    for (const t of [a, b]) expect(await readdir(t.config.dataDir)).not.toContain('print-files');
    const replay = await callB('POST', `/api/orders/${ids[0]}/replay`, { key: shop.adminKey });
    expect(replay.status).toBe(202);
    const results = await workflowResult(b, replay.body.workflowId, 60_000);
    expect(results).toHaveLength(2);
    for (const r of results) expect(r).toMatchObject({ matches: true });
  }, 300_000);
});

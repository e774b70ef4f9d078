import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Minio, minioBinary, startMinio } from '../helpers/minio.ts';
import { accessOf, notify, orderDone, type Shop, setUpShop, until } from '../helpers/orders.ts';
import { saleNotificationSuite } from './orders.suite.ts';

/** The same end-to-end order suite with print files and images in MinIO (STORAGE_URL). */
const binary = minioBinary();
if (!binary) {
  describe.skip('sale notifications with S3 storage (no MinIO binary: run scripts/install-minio.sh or set MINIO_PATH)', () => {
    it('needs MinIO', () => {});
  });
} else {
  let started: Promise<Minio> | undefined;
  const minio = () => (started ??= startMinio(binary));
  const s3Env = async () => {
    const m = await minio();
    const b = await m.bucket();
    return {
      STORAGE_URL: `s3://${b.bucket}/editor?endpoint=${encodeURIComponent(m.endpoint)}&pathStyle=true`,
      S3_ACCESS_KEY_ID: m.accessKeyId,
      S3_SECRET_ACCESS_KEY: m.secretAccessKey,
    };
  };
  afterAll(async () => (await started)?.stop());

  saleNotificationSuite('print files and images in S3 (MinIO)', s3Env);

  describe('the object storage killed and started again', () => {
    let t: TestApp;
    let shop: Shop;
    beforeAll(async () => {
      t = await startTestApp(await s3Env());
      shop = await setUpShop(client(t.url), accessOf(t));
    }, 120_000);
    afterAll(async () => t?.stop());

    it('says so in /readyz, takes orders meanwhile and prints them once it is back', async () => {
      const call = client(t.url);
      const readyz = async () => {
        const r = await fetch(`${t.url}/readyz`);
        return {
          status: r.status,
          body: (await r.json()) as { checks: Record<string, { ok: boolean; error?: string }> },
        };
      };
      expect((await readyz()).status).toBe(200);
      const m = await minio();
      await m.kill();
      const down = await until('/readyz to fail', async () => {
        const r = await readyz();
        return r.status === 503 ? r : undefined;
      });
      expect(down.body.checks.storage).toMatchObject({ ok: false });
      expect(down.body.checks.storage!.error).toMatch(/file storage does not answer/);
      expect(down.body.checks.database).toMatchObject({ ok: true });

      // notified while the storage is down: accepted, recorded, rendered later
      const orderId = `S3DOWN-${randomUUID().slice(0, 8)}`;
      expect(await notify(call, shop, orderId)).toBe(200);
      await new Promise((r) => setTimeout(r, 3000));
      const waiting = await call('GET', `/api/orders/${orderId}`, { key: shop.adminKey });
      expect(waiting.body.status).not.toBe('ready');

      const back = Date.now();
      await m.start();
      await until('/readyz to pass', async () =>
        (await readyz()).status === 200 ? true : undefined,
      );
      const order = await orderDone(call, shop, orderId);
      expect(order.status).toBe('ready');
      for (const item of order.items) expect(item.printFiles).toHaveLength(1);
      console.log(
        `[fault] object storage killed ${JSON.stringify({ orders: 1, ready: 1, recoveryMs: Date.now() - back })}`,
      );
    }, 180_000);
  });
}

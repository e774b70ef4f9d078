import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { client, shopOfProcesses } from '../helpers/app.ts';
import { type Minio, minioBinary, startMinio } from '../helpers/minio.ts';
import { orderDone, type Shop, until } from '../helpers/orders.ts';
import { createDatabase } from '../helpers/postgres-cluster.ts';
import { type AppProcess, spawnApp } from '../helpers/spawn-app.ts';

/**
 * Two hosts rehearsed on one machine, each role its own OS process: host A runs an API,
 * a worker and the projector, host B an API and a worker; each host has a DATA_DIR of its
 * own; they share one PostgreSQL, one Temporal task queue and one MinIO bucket. Host B's
 * API hands out signed links (302) where host A's streams. Orders are rendered by A's
 * worker, then, with A's worker stopped, by B's; every print file downloads from both
 * APIs with the sha256 the order reports, and an order A rendered replays on B
 * byte-identical.
 */
const binary = minioBinary();
const suite = binary ? describe : describe.skip;

suite(`two hosts sharing S3 storage, one process per role${binary ? '' : ' (no MinIO binary)'}`, () => {
  let minio: Minio;
  let db: Database;
  let shop: Shop;
  const hosts = {
    a: mkdtempSync(path.join(os.tmpdir(), 'host-a-')),
    b: mkdtempSync(path.join(os.tmpdir(), 'host-b-')),
  };
  const procs: Record<string, AppProcess> = {};
  let env: Record<string, string>;

  beforeAll(async () => {
    minio = await startMinio(binary!);
    const bucket = await minio.bucket();
    const databaseUrl = await createDatabase(inject('postgresUrl'));
    env = {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `hosts-${randomUUID()}`,
      OPERATOR_API_KEY: randomBytes(32).toString('base64url'),
      EDITOR_TOKEN_SECRET: randomBytes(32).toString('base64url'),
      STORAGE_URL: `s3://${bucket.bucket}/hosts?endpoint=${encodeURIComponent(minio.endpoint)}`,
      S3_ACCESS_KEY_ID: minio.accessKeyId,
      S3_SECRET_ACCESS_KEY: minio.secretAccessKey,
      PORT: '0',
    };
    const [apiA, projector, workerA, apiB] = await Promise.all([
      spawnApp('api', { ...env, DATA_DIR: hosts.a }),
      spawnApp('projector', { ...env, DATA_DIR: hosts.a }),
      spawnApp('worker', { ...env, DATA_DIR: hosts.a }),
      spawnApp('api', { ...env, DATA_DIR: hosts.b, PRINT_FILE_DOWNLOADS: 'redirect' }),
    ]);
    Object.assign(procs, { apiA, projector, workerA, apiB });
    ({ db, shop } = await shopOfProcesses(apiA.url, env));
  }, 300_000);
  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.kill('SIGTERM')));
    await db?.close();
    await minio?.stop();
  });

  async function notifyOn(api: AppProcess, orderId: string) {
    const r = await client(api.url)('POST', '/webhook/notifyorder', {
      key: shop.shopKey,
      body: {
        orderId,
        items: shop.projects.map((projectId, n) => ({ itemId: `l${n}`, projectId, quantity: 1 })),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  it('renders on either worker, downloads from either API (stream or signed link), replays byte-identical on the other', async () => {
    // three orders while only host A's worker polls, notified on alternating APIs
    const first = Array.from({ length: 3 }, () => `HA-${randomUUID().slice(0, 8)}`);
    for (const [i, id] of first.entries()) await notifyOn(i % 2 ? procs.apiB! : procs.apiA!, id);
    for (const id of first)
      expect((await orderDone(client(procs.apiA!.url), shop, id)).status).toBe('ready');
    // host B's worker takes over, host A's stops
    procs.workerB = await spawnApp('worker', { ...env, DATA_DIR: hosts.b });
    await procs.workerA!.kill('SIGTERM');
    const second = Array.from({ length: 3 }, () => `HB-${randomUUID().slice(0, 8)}`);
    for (const [i, id] of second.entries()) await notifyOn(i % 2 ? procs.apiA! : procs.apiB!, id);

    let files = 0;
    for (const orderId of [...first, ...second]) {
      const order = await orderDone(client(procs.apiB!.url), shop, orderId);
      expect(order.status).toBe('ready');
      for (const item of order.items) {
        const file = item.printFiles[0];
        const url = (api: AppProcess) =>
          `${api.url}/api/orderitem/${item.orderItemId}/printfile?sha256=${file.sha256}`;
        const headers = { 'x-api-key': shop.adminKey };
        // host A streams
        const streamed = await fetch(url(procs.apiA!), { headers });
        expect(streamed.status).toBe(200);
        expect(sha(Buffer.from(await streamed.arrayBuffer()))).toBe(file.sha256);
        // host B answers with a signed link into the bucket, which serves the same bytes
        const redirected = await fetch(url(procs.apiB!), { headers, redirect: 'manual' });
        expect(redirected.status).toBe(302);
        const link = redirected.headers.get('location')!;
        expect(link.startsWith(minio.endpoint)).toBe(true);
        expect(link).toContain('X-Amz-Signature=');
        const fromBucket = await fetch(link);
        expect(fromBucket.status).toBe(200);
        expect(fromBucket.headers.get('content-type')).toBe('application/pdf');
        expect(sha(Buffer.from(await fromBucket.arrayBuffer()))).toBe(file.sha256);
        files++;
      }
    }
    expect(files).toBe(12);
    // no print file on either host's disk: they are all in the bucket
    for (const dir of [hosts.a, hosts.b]) expect(await readdir(dir)).not.toContain('print-files');

    // an order host A's worker rendered, replayed by host B's (the only one left)
    const replay = await client(procs.apiB!.url)('POST', `/api/orders/${first[0]}/replay`, {
      key: shop.adminKey,
    });
    expect(replay.status).toBe(202);
    const replayed = await until('the replay to be recorded', async () => {
      const h = await client(procs.apiA!.url)('GET', `/api/orders/${first[0]}/history`, {
        key: shop.adminKey,
      });
      return h.body.find((e: { type: string }) => e.type === 'OrderReplayed');
    });
    expect(replayed.data.results).toHaveLength(2);
    for (const r of replayed.data.results) expect(r).toMatchObject({ matches: true });
  }, 300_000);
});

import { createHash, randomUUID } from 'node:crypto';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeUnheldImages } from '../../src/app/image-cleanup.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  editorUser,
  importCatalog,
  type Label,
  newIntegration,
  newLabel,
  settled,
} from '../helpers/fixtures.ts';
import { type Minio, minioBinary, startMinio } from '../helpers/minio.ts';
import { until } from '../helpers/orders.ts';

/** A small PNG of one colour, as a data URL, and the sha256 the image store files it under. */
async function png(r: number, g: number, b: number) {
  const bytes = await sharp({
    create: { width: 8, height: 8, channels: 3, background: { r, g, b } },
  })
    .png()
    .toBuffer();
  return {
    src: `data:image/png;base64,${bytes.toString('base64')}`,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

const binary = minioBinary();
let minio: Minio | undefined;
afterAll(async () => minio?.stop());

cleanupSuite('files under DATA_DIR', async () => ({}));
if (binary) {
  cleanupSuite('S3 (MinIO)', async () => {
    minio = await startMinio(binary);
    const b = await minio.bucket();
    return {
      STORAGE_URL: `s3://${b.bucket}/editor?endpoint=${encodeURIComponent(minio.endpoint)}`,
      S3_ACCESS_KEY_ID: minio.accessKeyId,
      S3_SECRET_ACCESS_KEY: minio.secretAccessKey,
    };
  });
} else {
  describe.skip('design images nothing holds are removed (S3: no MinIO binary: run scripts/install-minio.sh or set MINIO_PATH)', () => {
    it('needs MinIO', () => {});
  });
}

function cleanupSuite(where: string, env: () => Promise<Record<string, string>>) {
  describe(`design images nothing holds are removed (${where})`, () => {
    let t: TestApp;
    let call: ReturnType<typeof client>;
    let a: Label;

    beforeAll(async () => {
      t = await startTestApp(await env());
      call = client(t.url);
      a = await newLabel(call, t, 'Images');
      await importCatalog(call, t, 'supplier-a', [config('IMG-1')]);
    }, 120_000);
    afterAll(async () => t?.stop());

    async function project(token: string, src: string) {
      const r = await call('POST', '/editor/projects', {
        headers: { authorization: `Bearer ${token}` },
        body: {
          name: 'P',
          sku: 'IMG-1',
          supplier: 'supplier-a',
          design: {
            areas: [
              {
                printArea: 'FRONT',
                layers: [{ type: 'image', src, x: 1, y: 1, width: 20, height: 20, rotation: 0 }],
              },
            ],
          },
        },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as string;
    }

    it("keeps what an order or another user's project holds, removes a deleted user's and project's", async () => {
      const [own, shared, ordered, dropped] = await Promise.all([
        png(200, 0, 0),
        png(0, 200, 0),
        png(0, 0, 200),
        png(90, 90, 90),
      ]);
      const ada = await editorUser(t, a.labelId, 'ada');
      const bob = await editorUser(t, a.labelId, 'bob');
      await project(ada.token, own.src);
      await project(ada.token, shared.src);
      const sold = await project(ada.token, ordered.src);
      const bobs = await project(bob.token, shared.src);
      const gone = await project(ada.token, dropped.src);

      const shop = await newIntegration(call, t, a.adminApiKey, false);
      const orderId = `IMG-${randomUUID().slice(0, 8)}`;
      const order = await call('POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId, items: [{ itemId: 'line-1', projectId: sold, quantity: 1 }] },
      });
      expect(order.status, JSON.stringify(order.body)).toBe(200);
      const deletedProject = await call('DELETE', `/api/product/${gone}`, { key: a.adminApiKey });
      expect(deletedProject.status).toBe(200);
      const deletedUser = await call('DELETE', '/api/partner/user?userId=ada', {
        key: a.adminApiKey,
      });
      expect(deletedUser.status).toBe(200);
      await settled(t);

      const images = t.app.images;
      const stored = async () => (await images.list('')).map((k) => path.basename(k)).sort();
      const deps = { pool: t.app.db.pool, store: t.app.store, runner: t.app.runner, images };
      expect(await stored()).toEqual([own, shared, ordered, dropped].map((i) => i.sha256).sort());

      // images put within the grace period stay: their projects might not be recorded yet
      expect(await removeUnheldImages(deps, 60_000)).toEqual({ removed: 0, kept: 4 });
      expect(await removeUnheldImages(deps, 0)).toEqual({ removed: 2, kept: 2 });
      expect(await stored()).toEqual([shared.sha256, ordered.sha256].sort());

      // what remains still serves: bob's project comes back with its image inline
      const mine = await call('GET', `/editor/projects/${bobs}`, {
        headers: { authorization: `Bearer ${bob.token}` },
      });
      expect(mine.status).toBe(200);
      expect(mine.body.design.areas[0].layers[0].src).toBe(shared.src);
      // and an image put again after a removal is stored again
      await project(bob.token, own.src);
      expect(await stored()).toContain(own.sha256);
    });

    it("keeps a mockup template's photo while the template is set, and only a live project's latest cached mockups", async () => {
      const photo = await sharp({
        create: { width: 200, height: 150, channels: 3, background: '#cccccc' },
      })
        .png()
        .toBuffer();
      const photoSha = createHash('sha256').update(photo).digest('hex');
      const put = await call('PUT', '/api/mockup-templates/mug', {
        key: a.adminApiKey,
        body: {
          match: { sku: 'IMG-1' },
          photo: `data:image/png;base64,${photo.toString('base64')}`,
          areas: [
            {
              printArea: 'FRONT',
              corners: [
                [20, 20],
                [180, 20],
                [180, 130],
                [20, 130],
              ],
              blend: 'multiply',
            },
          ],
        },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const cy = await editorUser(t, a.labelId, 'cy');
      const red = await png(200, 0, 0);
      const id = await project(cy.token, red.src);
      const editor = { headers: { authorization: `Bearer ${cy.token}` } };
      // drawn within MOCKUP_WAIT_MS (201), or later (202: its status URL polled to 200)
      const draw = async () => {
        const r = await call('POST', `/editor/projects/${id}/mockups`, {
          ...editor,
          body: { width: 100 },
        });
        expect([201, 202], JSON.stringify(r.body)).toContain(r.status);
        const done =
          r.status === 201
            ? r
            : await until('the mockups to be drawn', async () => {
                const s = await call('GET', r.body.statusUrl, editor);
                return s.status === 200 ? s : undefined;
              });
        return done.body.mockups[0].url as string;
      };
      const first = await draw();
      const saved = await call('GET', `/editor/projects/${id}`, editor);
      const { name, sku, supplier, design } = saved.body;
      expect(
        (
          await call('PUT', `/editor/projects/${id}`, {
            ...editor,
            body: { name, sku, supplier, design },
          })
        ).status,
      ).toBe(200);
      const second = await draw();
      await settled(t);

      const images = t.app.images;
      const deps = { pool: t.app.db.pool, store: t.app.store, runner: t.app.runner, images };
      const cached = async () => (await images.list(`mockups/${id}/`)).map((k) => path.basename(k));
      const held = async () => (await images.list('')).map((k) => path.basename(k));
      expect(await cached()).toEqual([path.basename(first), path.basename(second)].sort());
      await removeUnheldImages(deps, 0);
      expect(await held()).toContain(photoSha);
      // the earlier revision's mockup goes, the latest stays and still serves
      expect(await cached()).toEqual([path.basename(second)]);
      expect((await fetch(`${t.url}${second}`, editor)).status).toBe(200);
      expect((await fetch(`${t.url}${first}`, editor)).status).toBe(404);

      // the template deleted: its photo goes; the project deleted: its mockups go
      expect(
        (await call('DELETE', '/api/mockup-templates/mug', { key: a.adminApiKey })).status,
      ).toBe(200);
      expect((await call('DELETE', `/api/product/${id}`, { key: a.adminApiKey })).status).toBe(200);
      await settled(t);
      await removeUnheldImages(deps, 0);
      expect(await held()).not.toContain(photoSha);
      expect(await cached()).toEqual([]);
    }, 120_000);
  });
}

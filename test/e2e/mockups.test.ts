import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockupsReactor } from '../../src/reactions/mockups.ts';
import { ReactionRunner } from '../../src/reactions/reactor.ts';
import { client, joiningEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config as catalogConfig,
  editorUser,
  importDone,
  newLabel,
  opsLogin,
  refused,
  settled,
} from '../helpers/fixtures.ts';
import { accessOf, orderDone, type Shop, setUpShop, until } from '../helpers/orders.ts';
import { extractImages } from '../helpers/pdf.ts';
import { parseMessage, startReceiver } from '../helpers/webhook-receiver.ts';

type Quad = [number, number][];
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const png = async (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();
const dataUrl = (b: Buffer, type = 'image/png') => `data:${type};base64,${b.toString('base64')}`;

/** A design that fills the 80 x 50 mm FRONT with one colour. */
const filled = async (colour: string) => ({
  areas: [
    {
      printArea: 'FRONT',
      layers: [
        {
          type: 'image',
          src: dataUrl(await png(400, 250, colour)),
          x: 0,
          y: 0,
          width: 80,
          height: 50,
          rotation: 0,
        },
      ],
    },
  ],
});

async function pixels(image: Buffer) {
  const { data, info } = await sharp(image)
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x: number, y: number) => {
      const i = (Math.round(y) * info.width + Math.round(x)) * 3;
      return [data[i]!, data[i + 1]!, data[i + 2]!] as const;
    },
  };
}

/** Whether a point lies inside a convex quad grown (or shrunk, negative) by `margin` px. */
function inside(q: Quad, x: number, y: number, margin: number): boolean {
  for (let i = 0; i < 4; i++) {
    const [ax, ay] = q[i]!;
    const [bx, by] = q[(i + 1) % 4]!;
    const len = Math.hypot(bx - ax, by - ay);
    // clockwise on screen: the inside is where the cross product is positive
    const d = ((bx - ax) * (y - ay) - (by - ay) * (x - ax)) / len;
    if (d < -margin) return false;
  }
  return true;
}

const isRed = ([r, g, b]: readonly number[]) => r! > 200 && g! < 110 && b! < 110;

describe('mockups', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let shop: Shop;
  let token: string;
  let redProject: string;
  const editor = () => ({ headers: { authorization: `Bearer ${token}` } });
  const admin = () => ({ key: shop.adminKey });
  type Access = ReturnType<typeof editor> | ReturnType<typeof admin>;
  /** a status URL polled until the mockups are drawn (200) */
  const drawnBy = (statusUrl: string, access: Access) =>
    until('the mockups to be drawn', async () => {
      const r = await call('GET', statusUrl, access);
      if (r.status === 202) return undefined;
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r;
    });
  /** POST for mockups: 202 with a status URL, polled to 200 */
  const drawn2 = async (path: string, access: Access, body: unknown) => {
    const r = await call('POST', path, { ...access, body });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    return drawnBy(r.body.statusUrl, access);
  };

  beforeAll(async () => {
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: 'on',
      WEBHOOK_ALLOW_HTTP: 'on',
      MOCKUP_WAIT_MS: '0',
    });
    call = client(t.url);
    shop = await setUpShop(call, accessOf(t), 0);
    token = shop.token;
    const p = await call('POST', '/editor/projects', {
      ...editor(),
      body: { name: 'Red', sku: shop.sku, supplier: 'supplier-a', design: await filled('#ff0000') },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    redProject = p.body.id;
  }, 180_000);

  afterAll(async () => {
    await t?.stop();
  });

  const quad: Quad = [
    [200, 150],
    [600, 170],
    [580, 450],
    [220, 430],
  ];

  it('lays the design into the quad: red inside, the photo untouched outside, corners within 2 px, the same bytes again', async () => {
    const photo = await png(800, 600, '#d8d8d8');
    const put = await call('PUT', '/api/mockup-templates/tee-flat', {
      ...admin(),
      body: {
        match: { sku: shop.sku },
        photo: dataUrl(photo),
        areas: [{ printArea: 'FRONT', corners: quad, blend: 'normal' }],
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ templateId: 'tee-flat', revision: 1 });
    expect(put.body.photo).toMatchObject({ width: 800, height: 600, sha256: sha256(photo) });

    // this app answers at once (MOCKUP_WAIT_MS=0): 202 and a status URL, polled to 200
    const asked = await call('POST', `/editor/projects/${redProject}/mockups`, {
      ...editor(),
      body: { templateId: 'tee-flat', width: 800 },
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body).toMatchObject({ projectId: redProject, status: 'drawing' });
    expect(asked.headers.get('location')).toBe(asked.body.statusUrl);
    expect(asked.body.statusUrl).toBe(
      `/editor/projects/${redProject}/mockups?templateId=tee-flat&format=png&width=800`,
    );
    const drawn = await drawnBy(asked.body.statusUrl, editor());
    const [m] = drawn.body.mockups;
    expect(m).toMatchObject({
      templateId: 'tee-flat',
      templateRevision: 1,
      width: 800,
      height: 600,
    });
    const image = await fetch(`${t.url}${m.url}`, editor());
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(sha256(bytes)).toBe(m.sha256);

    const out = await pixels(bytes);
    const bg = await pixels(photo);
    let outsideChecked = 0;
    for (let y = 0; y < 600; y += 3)
      for (let x = 0; x < 800; x += 3) {
        if (inside(quad, x + 0.5, y + 0.5, 2)) continue;
        expect(out.at(x, y), `(${x}, ${y}) outside the quad`).toEqual(bg.at(x, y));
        outsideChecked++;
      }
    expect(outsideChecked).toBeGreaterThan(30_000);
    let red = 0;
    for (let y = 150; y < 450; y += 5)
      for (let x = 200; x < 600; x += 5)
        if (inside(quad, x + 0.5, y + 0.5, -2)) {
          expect(isRed(out.at(x, y)), `(${x}, ${y}) inside the quad is ${out.at(x, y)}`).toBe(true);
          red++;
        }
    expect(red).toBeGreaterThan(3000);
    // each corner: red within 2 px of it, photo 3 px further out along its diagonal
    const [cx, cy] = [400, 300];
    for (const [x, y] of quad) {
      let nearest = Number.POSITIVE_INFINITY;
      for (let dy = -4; dy <= 4; dy++)
        for (let dx = -4; dx <= 4; dx++)
          if (isRed(out.at(x + dx, y + dy))) nearest = Math.min(nearest, Math.hypot(dx, dy));
      expect(nearest, `corner (${x}, ${y})`).toBeLessThanOrEqual(2);
      const d = Math.hypot(x - cx, y - cy);
      const beyond = out.at(x + ((x - cx) / d) * 3, y + ((y - cy) / d) * 3);
      expect(beyond, `beyond corner (${x}, ${y})`).toEqual(bg.at(0, 0));
    }

    // asked again: the same image; the project saved again (a new revision, drawn anew): the same
    // bytes
    const again = await call('POST', `/editor/projects/${redProject}/mockups`, {
      ...editor(),
      body: { templateId: 'tee-flat', width: 800 },
    });
    expect(again.status).toBe(201);
    expect(again.body.mockups[0].sha256).toBe(m.sha256);
    const project = await call('GET', `/editor/projects/${redProject}`, editor());
    const saved = await call('PUT', `/editor/projects/${redProject}`, {
      ...editor(),
      body: {
        name: project.body.name,
        sku: project.body.sku,
        supplier: project.body.supplier,
        design: project.body.design,
      },
    });
    expect(saved.status).toBe(200);
    const redrawn = await drawn2(`/editor/projects/${redProject}/mockups`, editor(), {
      templateId: 'tee-flat',
      width: 800,
    });
    expect(redrawn.body.projectRevision).toBe(drawn.body.projectRevision + 1);
    expect(redrawn.body.mockups[0].url).not.toBe(m.url);
    expect(redrawn.body.mockups[0].sha256).toBe(m.sha256);
    // the label prints with another output profile from now on: the mockup is drawn anew from that
    // print file
    const profile = await fetch(`${t.url}/api/print-settings/output-profile`, {
      method: 'PUT',
      headers: { 'x-api-key': shop.adminKey, 'content-type': 'application/vnd.iccprofile' },
      body: readFileSync('/usr/share/color/icc/ghostscript/default_cmyk.icc'),
    });
    expect(profile.status).toBe(200);
    const reprofiled = await drawn2(`/editor/projects/${redProject}/mockups`, editor(), {
      templateId: 'tee-flat',
      width: 800,
    });
    expect(reprofiled.body.mockups[0].url).not.toBe(redrawn.body.mockups[0].url);
    const reset = await call('DELETE', '/api/print-settings/output-profile', admin());
    expect(reset.status).toBe(200);
    // the admin key sees it too; the status URL answers the same
    const status = await call(
      'GET',
      `/api/projects/${redProject}/mockups?templateId=tee-flat&width=800`,
      admin(),
    );
    expect(status.status).toBe(200);
    expect(status.body.mockups[0].sha256).toBe(m.sha256);
  }, 120_000);

  it('darkens a multiply-blended design where the photo is darker, through a trapezoid', async () => {
    // the left half light grey (200), the right half dark grey (100)
    const photo = await sharp(await png(800, 600, '#c8c8c8'))
      .composite([{ input: await png(400, 600, '#646464'), left: 400, top: 0 }])
      .png()
      .toBuffer();
    const trapezoid: Quad = [
      [250, 100],
      [550, 100],
      [700, 500],
      [100, 500],
    ];
    const put = await call('PUT', '/api/mockup-templates/tee-shaded', {
      ...admin(),
      body: {
        match: { baseSKU: shop.sku.split('-')[0], productColor: 'white' },
        photo: dataUrl(photo),
        areas: [{ printArea: 'FRONT', corners: trapezoid, blend: 'multiply' }],
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const drawn = await drawn2(`/api/projects/${redProject}/mockups`, admin(), {
      templateId: 'tee-shaded',
      width: 800,
    });
    const image = await fetch(`${t.url}${drawn.body.mockups[0].url}`, {
      headers: { 'x-api-key': shop.adminKey },
    });
    const out = await pixels(Buffer.from(await image.arrayBuffer()));
    const mean = (x0: number, x1: number) => {
      const sum = [0, 0, 0];
      let n = 0;
      for (let y = 250; y < 450; y += 4)
        for (let x = x0; x < x1; x += 4) {
          const p = out.at(x, y);
          for (let c = 0; c < 3; c++) sum[c]! += p[c]!;
          n++;
        }
      return sum.map((s) => s / n);
    };
    const light = mean(250, 390);
    const dark = mean(410, 550);
    // red ink multiplied: red carries the photo's brightness, green and blue stay low
    expect(light[0]).toBeGreaterThan(170);
    expect(light[1]).toBeLessThan(80);
    expect(dark[1]).toBeLessThan(50);
    const ratio = dark[0]! / light[0]!;
    expect(ratio).toBeGreaterThan(100 / 200 - 0.05);
    expect(ratio).toBeLessThan(100 / 200 + 0.05);
    // outside the trapezoid, the photo as it was
    expect(out.at(20, 20)).toEqual([200, 200, 200]);
    expect(out.at(780, 580)).toEqual([100, 100, 100]);
  }, 120_000);

  it('refuses bad templates with a 400 naming the field, and changes nothing', async () => {
    const photo = dataUrl(await png(400, 300, '#ffffff'));
    const base = { match: { sku: shop.sku }, photo };
    const area = (corners: Quad, printArea = 'FRONT') => ({
      ...base,
      areas: [{ printArea, corners, blend: 'normal' }],
    });
    const concave = await refused(t, call, 400, 'PUT', '/api/mockup-templates/bad', {
      ...admin(),
      body: area([
        [10, 10],
        [300, 10],
        [100, 100],
        [10, 250],
      ]),
    });
    expect(concave.errors[0].path).toBe('areas.0.corners');
    expect(concave.detail).toMatch(/convex/);
    const outside = await refused(t, call, 400, 'PUT', '/api/mockup-templates/bad', {
      ...admin(),
      body: area([
        [10, 10],
        [450, 10],
        [390, 290],
        [10, 290],
      ]),
    });
    expect(outside.errors[0].path).toBe('areas.0.corners');
    expect(outside.detail).toMatch(/outside/);
    const unknown = await refused(t, call, 400, 'PUT', '/api/mockup-templates/bad', {
      ...admin(),
      body: area(
        [
          [10, 10],
          [300, 10],
          [300, 250],
          [10, 250],
        ],
        'SLEEVE',
      ),
    });
    expect(unknown.errors[0].path).toBe('areas.0.printArea');
    const huge = await sharp({
      create: { width: 10_000, height: 10_000, channels: 3, background: '#ffffff' },
    })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const tooLarge = await refused(t, call, 400, 'PUT', '/api/mockup-templates/bad', {
      ...admin(),
      body: {
        ...area([
          [10, 10],
          [300, 10],
          [300, 250],
          [10, 250],
        ]),
        photo: dataUrl(huge),
      },
    });
    expect(tooLarge.errors[0].path).toBe('photo');
    expect(tooLarge.detail).toMatch(/100 megapixels/);
    const noProduct = await refused(t, call, 400, 'PUT', '/api/mockup-templates/bad', {
      ...admin(),
      body: {
        ...area([
          [10, 10],
          [300, 10],
          [300, 250],
          [10, 250],
        ]),
        match: { sku: 'NOPE-1' },
      },
    });
    expect(noProduct.errors[0].path).toBe('match.sku');
    const mask = await refused(t, call, 400, 'PUT', '/api/mockup-templates/bad', {
      ...admin(),
      body: {
        ...base,
        areas: [
          {
            printArea: 'FRONT',
            corners: [
              [10, 10],
              [300, 10],
              [300, 250],
              [10, 250],
            ],
            blend: 'normal',
            mask: dataUrl(await png(40, 30, '#ffffff')),
          },
        ],
      },
    });
    expect(mask.errors[0].path).toBe('areas.0.mask');
    await refused(t, call, 404, 'GET', '/api/mockup-templates/bad', admin());
  }, 120_000);

  it('takes 50 racing changes of one template one at a time: revisions without gaps, the last read back', async () => {
    const photo = dataUrl(await png(400, 300, '#ffffff'));
    const body = (i: number) => ({
      match: { sku: shop.sku },
      photo,
      areas: [
        {
          printArea: 'FRONT',
          corners: [
            [10 + i, 10],
            [300, 10],
            [300, 250],
            [10, 250],
          ],
          blend: 'normal',
        },
      ],
    });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call('PUT', '/api/mockup-templates/race', { ...admin(), body: body(i) }),
      ),
    );
    // a change waits its turn, or is told to come again: 409 (lost the race twice), 429 (too many
    // images queued)
    for (const a of answers) expect([200, 409, 429], JSON.stringify(a.body)).toContain(a.status);
    const taken = answers.filter((a) => a.status === 200);
    expect(taken.length).toBeGreaterThan(0);
    const events = await t.app.db.pool.query<{ revision: number; corners: number[][] }>(
      `SELECT (data->>'revision')::int AS revision, data->'areas'->0->'corners' AS corners
       FROM es_events WHERE stream_id = $1 ORDER BY revision`,
      [`MockupTemplate-${shop.labelId}-race`],
    );
    expect(events.rows.map((e) => e.revision)).toEqual(events.rows.map((_, i) => i + 1));
    expect(events.rows.length).toBe(taken.length);
    const last = await call('GET', '/api/mockup-templates/race', admin());
    expect(last.body.revision).toBe(events.rows.length);
    expect(last.body.areas[0].corners).toEqual(events.rows.at(-1)!.corners);
    const gone = await call('DELETE', '/api/mockup-templates/race', admin());
    expect(gone.body).toEqual({ templateId: 'race', deleted: true });
    expect((await call('GET', '/api/mockup-templates/race', admin())).status).toBe(404);
    const listed = await call('GET', '/api/mockup-templates', admin());
    expect(listed.body.map((x: { templateId: string }) => x.templateId)).toEqual([
      'tee-flat',
      'tee-shaded',
    ]);
  }, 120_000);

  it('records a mockup once when the process drawing it is killed (kill -9) between storing it and recording it', async () => {
    // a product of its own, ordered before it has a template: the service's reactor passes it by
    const sku = `MUG-${randomUUID().slice(0, 6)}`;
    const imp = await call('POST', '/operator/catalog/supplier-a', {
      key: t.operatorKey,
      body: [{ ...catalogConfig(sku), baseSKU: 'MUG' }],
    });
    expect(imp.status).toBe(202);
    await importDone(call, `/operator/catalog/imports/${imp.body.importId}`, t.operatorKey);
    await settled(t);
    const p = await call('POST', '/editor/projects', {
      ...editor(),
      body: { name: 'Mug', sku, supplier: 'supplier-a', design: await filled('#ff0000') },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const orderId = `K-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.shopKey,
      body: { orderId, items: [{ itemId: 'l1', projectId: p.body.id, quantity: 1 }] },
    });
    expect(r.status).toBe(200);
    const order = await orderDone(call, shop, orderId);
    const itemId = order.items[0].orderItemId;
    await settled(t);
    const put = await call('PUT', '/api/mockup-templates/mug', {
      ...admin(),
      body: {
        match: { sku },
        photo: dataUrl(await png(600, 400, '#e0e0e0')),
        areas: [
          {
            printArea: 'FRONT',
            corners: quad.map(([x, y]) => [x - 100, y - 100]),
            blend: 'multiply',
          },
        ],
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    // a reactor of its own reads the log from the start, draws, stores and stalls: killed there
    const name = `order-mockups-${randomUUID().slice(0, 6)}`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/helpers/stalling-mockups.ts', name],
      {
        env: { ...process.env, ...joiningEnv(t) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await until('the mockup stored and the reactor stalled', async () =>
      out.includes('stalled') ? true : undefined,
    );
    expect(out).toContain(`stalled ${shop.labelId}/${itemId}/mockup-`);
    const gone = once(child, 'exit');
    child.kill('SIGKILL');
    await gone;
    const mockupsOf = async () =>
      (await t.app.storage.list(`${shop.labelId}/${itemId}/`)).filter((k) =>
        k.includes('/mockup-'),
      );
    expect(await mockupsOf()).toHaveLength(1);
    const recorded = () =>
      t.app.db.pool.query<{ sha256: string; storage_key: string }>(
        `SELECT data->>'sha256' AS sha256, data->>'storageKey' AS storage_key FROM es_events
         WHERE type = 'MockupRendered' AND data->>'orderItemId' = $1`,
        [itemId],
      );
    expect((await recorded()).rows).toHaveLength(0);

    // the replacement takes up where the killed one left: the same bytes, recorded once
    const replacement = new ReactionRunner(
      t.app.db.pool,
      t.app.store,
      [
        {
          ...mockupsReactor({
            store: t.app.store,
            pool: t.app.db.pool,
            storage: t.app.storage,
            images: t.app.images,
            drawing: t.app.context.mockupDrawing,
            quiet: async () => {},
          }),
          name,
        },
      ],
      pino({ level: 'silent' }),
    );
    replacement.start();
    try {
      const rows = await until('the mockup recorded', async () => {
        const r = await recorded();
        return r.rows.length > 0 ? r.rows : undefined;
      });
      await new Promise((res) => setTimeout(res, 500));
      expect((await recorded()).rows).toHaveLength(1);
      expect(await mockupsOf()).toEqual([rows[0]!.storage_key]);
      expect(sha256((await t.app.storage.get(rows[0]!.storage_key))!)).toBe(rows[0]!.sha256);
    } finally {
      await replacement.stop();
    }
  }, 180_000);

  it('gives each order item its mockups after its print file, tells the shop, and keeps them from other labels', async () => {
    const hooks = await startReceiver();
    try {
      const integration = await call('POST', '/api/shop-integration', {
        ...admin(),
        body: { name: 'Hooks', shopSystem: 'test', shopUrl: 'https://shop.example' },
      });
      const set = await call('PUT', `/api/shop-integration/${integration.body.id}/webhook`, {
        ...admin(),
        body: { url: hooks.url(), events: ['order.item.print_ready', 'order.item.mockup_ready'] },
      });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      const orderId = `M-${randomUUID().slice(0, 8)}`;
      const r = await call('POST', '/webhook/notifyorder', {
        key: integration.body.apiKey,
        body: { orderId, items: [{ itemId: 'l1', projectId: redProject, quantity: 1 }] },
      });
      expect(r.status).toBe(200);
      const order = await orderDone(call, shop, orderId);
      expect(order.status).toBe('ready');
      const item = order.items[0];
      // both templates match the product (one by SKU, one by base SKU and colour)
      // drawn after the print file, in image processes a loaded machine may keep waiting
      const mockups = await until(
        'two mockups',
        async () => {
          const list = await call('GET', `/api/orderitem/${item.orderItemId}/mockups`, admin());
          return list.body.length === 2 ? list.body : undefined;
        },
        180_000,
      );
      expect(mockups.map((m: { templateId: string }) => m.templateId).sort()).toEqual([
        'tee-flat',
        'tee-shaded',
      ]);
      const file = item.printFiles.at(-1);
      for (const m of mockups) {
        expect(m.printFileSha256).toBe(file.sha256);
        const image = await fetch(`${t.url}${m.download}`, {
          headers: { 'x-api-key': shop.adminKey },
        });
        expect(image.status).toBe(200);
        expect(sha256(Buffer.from(await image.arrayBuffer()))).toBe(m.sha256);
      }
      // in the log, after the print file
      const log = await t.app.db.pool.query<{ type: string }>(
        `SELECT type FROM es_events WHERE stream_id = (SELECT stream_id FROM es_events
           WHERE type = 'OrderReceived' AND data->>'orderId' = $1) ORDER BY revision`,
        [orderId],
      );
      const types = log.rows.map((e) => e.type);
      expect(types.indexOf('MockupRendered')).toBeGreaterThan(types.indexOf('PrintFileGenerated'));
      expect(types.filter((x) => x === 'MockupRendered')).toHaveLength(2);
      // the shop hears of both, after the print file
      const told = await until('two mockup_ready webhooks', async () => {
        const got = hooks.requests
          .map(parseMessage)
          .filter((m) => m.type === 'order.item.mockup_ready');
        return got.length === 2 ? got : undefined;
      });
      expect(told.map((m) => m.data.download).sort()).toEqual(
        mockups.map((m: { download: string }) => m.download).sort(),
      );
      const ready = hooks.requests
        .map(parseMessage)
        .find((m) => m.type === 'order.item.print_ready');
      expect(ready!.data.sequence).toBeLessThan(Math.min(...told.map((m) => m.data.sequence)));

      // the ops page shows them, each behind its link
      const cookie = await opsLogin(t.url, shop.adminKey);
      const opsPage = await fetch(
        `${t.url}/ops/labels/${shop.labelId}/orders/${encodeURIComponent(orderId)}`,
        { headers: { cookie } },
      );
      const html = await opsPage.text();
      expect(html).toContain('Mockup drawn');
      for (const m of mockups) {
        const src = `/ops/labels/${shop.labelId}/items/${item.orderItemId}/mockups/${m.sha256}`;
        expect(html).toContain(src);
        const image = await fetch(`${t.url}${src}`, { headers: { cookie } });
        expect(sha256(Buffer.from(await image.arrayBuffer()))).toBe(m.sha256);
      }
      // the packing slip's thumbnail is the first mockup (tee-flat): the photo's grey at its corner
      const slip = await fetch(`${t.url}/api/orders/${encodeURIComponent(orderId)}/packing-slip`, {
        headers: { 'x-api-key': shop.adminKey },
      });
      expect(slip.status).toBe(200);
      const thumbs = [];
      for (const png of extractImages(Buffer.from(await slip.arrayBuffer()))) {
        const meta = await sharp(png).metadata();
        if (meta.width === 240 && meta.height === 180) thumbs.push(await pixels(png));
      }
      expect(thumbs).toHaveLength(1);
      expect(thumbs[0]!.at(2, 2)).toEqual([216, 216, 216]);
      expect(isRed(thumbs[0]!.at(120, 90))).toBe(true);

      // another label's admin: neither the list nor an image nor the project's mockups
      const other = await newLabel(call, t, 'Other');
      await refused(t, call, 404, 'GET', `/api/orderitem/${item.orderItemId}/mockups`, {
        key: other.adminApiKey,
      });
      await refused(t, call, 404, 'GET', mockups[0].download, { key: other.adminApiKey });
      await refused(t, call, 404, 'POST', `/api/projects/${redProject}/mockups`, {
        key: other.adminApiKey,
        body: {},
      });
      const stranger = await editorUser(t, shop.labelId, `u-${randomUUID()}`);
      await refused(t, call, 404, 'POST', `/editor/projects/${redProject}/mockups`, {
        headers: { authorization: `Bearer ${stranger.token}` },
        body: {},
      });
    } finally {
      await hooks.close();
    }
  }, 360_000);
});

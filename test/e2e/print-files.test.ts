import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderStream } from '../../src/domain/order/events.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  editorUser,
  importCatalog,
  type Label,
  newIntegration,
  newLabel,
  refused,
  workflowResult,
} from '../helpers/fixtures.ts';
import { until } from '../helpers/orders.ts';
import {
  cmykAt,
  decodeBarcodes,
  inkCoverage,
  listImages,
  pageBoxes,
  pdfFonts,
  pdfInfo,
  pdfXmp,
  qpdfCheck,
  separations,
} from '../helpers/pdf.ts';

const PT = 72 / 25.4;
const A6 = { widthMm: 105, heightMm: 148 };
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
/** Ghostscript's own CMYK output profile: a second output condition to upload. */
const GS_CMYK = '/usr/share/color/icc/ghostscript/default_cmyk.icc';
const GS_RGB = '/usr/share/color/icc/ghostscript/default_rgb.icc';

/**
 * Print files as a print shop's preflight sees them, checked with outside tools (qpdf,
 * Ghostscript's inkcov and tiffsep, poppler's pdfimages, pdffonts, pdfinfo, zbar): PDF/X-4
 * with an output intent, CMYK only, 100% K black, spot colours for screen print, bleed,
 * crop marks, the service's own preflight report, and replays that stay byte-identical.
 */
describe('print files a preflight accepts', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Label;
  let b: Label;
  let shopA: { apiKey: string };
  let shopB: { apiKey: string };
  let tokenA: string;
  let tokenB: string;

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    a = await newLabel(call, t, 'Digital A');
    b = await newLabel(call, t, 'Own profile B');
    shopA = await newIntegration(call, t, a.adminApiKey, false);
    shopB = await newIntegration(call, t, b.adminApiKey, false);
    await importCatalog(call, t, 'supplier-a', [
      config('DIG-A6', {
        printMethod: 'digital',
        printColors: 4,
        printAreas: [{ code: 'FRONT', name: 'Front', ...A6 }],
      }),
      config('SCR-2', {
        printMethod: 'screen',
        printColors: 2,
        printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 80, heightMm: 50 }],
      }),
      config('DIG-FB', {
        printMethod: 'digital',
        printColors: 4,
        printAreas: [
          { code: 'FRONT', name: 'Front', widthMm: 100, heightMm: 70 },
          { code: 'BACK', name: 'Back', widthMm: 100, heightMm: 70 },
        ],
      }),
      config('SCR-BLK', {
        printMethod: 'screen',
        printColors: 2,
        productColor: 'black',
        printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 80, heightMm: 50 }],
      }),
      config('PAD-1', {
        printMethod: 'pad',
        printColors: 1,
        printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 40, heightMm: 25 }],
      }),
      config('ENG-1', {
        printMethod: 'engraving',
        printColors: 1,
        printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 60, heightMm: 30 }],
      }),
    ]);
    tokenA = (await editorUser(t, a.labelId, 'designer-a')).token;
    tokenB = (await editorUser(t, b.labelId, 'designer-b')).token;
  }, 120_000);
  afterAll(async () => t?.stop());

  const design = (layers: unknown[], extra: Record<string, unknown> = {}) => ({
    ...extra,
    areas: [{ printArea: 'FRONT', layers }],
  });
  const saveProject = (token: string, sku: string, d: unknown) =>
    call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${token}` },
      body: { name: 'P', sku, supplier: 'supplier-a', design: d },
    });
  async function project(token: string, sku: string, d: unknown): Promise<string> {
    const r = await saveProject(token, sku, d);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id;
  }
  /** One order of one project; the ready order and its print file's bytes. */
  async function printed(label: Label, shop: { apiKey: string }, projectId: string) {
    const orderId = `PF-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.apiKey,
      body: { orderId, items: [{ itemId: 'line-1', projectId, quantity: 1 }] },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const order = await until(`order ${orderId}`, async () => {
      const o = await call('GET', `/api/orders/${orderId}`, { key: label.adminApiKey });
      return ['ready', 'failed'].includes(o.body?.status) ? o.body : undefined;
    });
    expect(order.status, JSON.stringify(order)).toBe('ready');
    const file = order.items[0].printFiles[0];
    const res = await fetch(file.url.replace(/^http:\/\/[^/]+/, t.url), {
      headers: { 'x-api-key': label.adminApiKey },
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
    return { orderId, order, bytes };
  }
  const png = (svg: string) => sharp(Buffer.from(svg)).png().toBuffer();
  const dataUrl = (type: string, bytes: Buffer) =>
    `data:${type};base64,${bytes.toString('base64')}`;

  it('makes PDF/X-4 in CMYK: output intent, keys and XMP read back, no RGB, 100% K black, vector barcode, subset fonts', async () => {
    const photo = await sharp({
      create: { width: 1200, height: 800, channels: 3, background: '#2f6fbf' },
    })
      .jpeg()
      .toBuffer();
    const logo = await png(
      '<svg width="300" height="200"><circle cx="100" cy="100" r="90" fill="#e0301e"/></svg>',
    );
    const { order, bytes } = await printed(
      a,
      shopA,
      await project(
        tokenA,
        'DIG-A6',
        design([
          {
            type: 'image',
            src: dataUrl('image/jpeg', photo),
            x: 10,
            y: 10,
            width: 60,
            height: 40,
            rotation: 0,
          },
          {
            type: 'image',
            src: dataUrl('image/png', logo),
            x: 10,
            y: 60,
            width: 30,
            height: 20,
            rotation: 10,
          },
          { type: 'text', text: 'Black words', x: 10, y: 100, fontSize: 16, color: '#000000' },
        ]),
      ),
    );
    expect(qpdfCheck(bytes)).toMatch(/No syntax or stream encoding errors/);
    const info = pdfInfo(bytes);
    expect(info['PDF version']).toBe('1.6');
    expect(info.GTS_PDFXVersion).toBe('PDF/X-4');
    expect(info.Title).toContain(order.items[0].orderItemId);
    expect(pdfXmp(bytes)).toContain('<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>');
    const raw = Buffer.from(bytes).toString('latin1');
    expect(raw).toMatch(/\/Trapped \/False/);
    expect(raw).toMatch(/\/OutputIntents\s*\[/);
    expect(raw).toMatch(/\/S\s*\/GTS_PDFX/);
    expect(raw).toMatch(/\/DestOutputProfile \d+ 0 R/);
    expect(raw).toMatch(/\/ID\s*\[\s*<[0-9A-Fa-f]{32}>\s*<[0-9A-Fa-f]{32}>\s*\]/);
    // every image CMYK, the lossless PNG not turned into JPEG
    const images = listImages(bytes);
    expect(images.length).toBe(2);
    expect(images.map((i) => i.color)).toEqual(['cmyk', 'cmyk']);
    expect(raw.match(/\/DeviceRGB/g)).toBeNull();
    expect(raw).toMatch(
      /\/Filter \/FlateDecode[^>]*\/ColorSpace \/DeviceCMYK|\/ColorSpace \/DeviceCMYK[^>]*\/Filter \/FlateDecode/,
    );
    for (const f of pdfFonts(bytes)) {
      expect(f.embedded).toBe(true);
      expect(f.name).toMatch(/^[A-Z]{6}\+DejaVuSans$/);
    }
    // the barcode, drawn as vector shapes, still decodes
    expect(decodeBarcodes(bytes)).toEqual([[order.items[0].orderItemId]]);
    // the service's own preflight, in the order and its history
    const pre = order.items[0].preflight;
    expect(pre).toMatchObject({ passed: true, sha256: order.items[0].printFiles[0].sha256 });
    expect(pre.rules.map((r: { rule: string }) => r.rule)).toEqual(
      expect.arrayContaining([
        'pdfx_identification',
        'output_intent',
        'colour_spaces',
        'fonts_embedded',
        'boxes_nested',
        'ink_coverage',
        'image_resolution',
        'plates',
      ]),
    );
    expect(pre.rules.every((r: { result: string }) => r.result === 'pass')).toBe(true);
    expect(pre.plates).toEqual(['Cyan', 'Magenta', 'Yellow', 'Black']);
  }, 120_000);

  it('prints black text and the barcode from the K plate alone', async () => {
    const { bytes } = await printed(
      a,
      shopA,
      await project(
        tokenA,
        'DIG-A6',
        design([
          { type: 'text', text: 'Only black', x: 10, y: 20, fontSize: 24, color: '#000000' },
        ]),
      ),
    );
    const [page] = inkCoverage(bytes);
    expect(page!.k).toBeGreaterThan(0);
    expect([page!.c, page!.m, page!.y]).toEqual([0, 0, 0]);
  }, 60_000);

  it('keeps a CMYK JPEG in CMYK: its 100% K area stays 0/0/0/100', async () => {
    // left half 100% K, top right 100% C, bottom right 50% M + 100% Y (made with Pillow)
    const jpeg = readFileSync(path.join(FIXTURES, 'cmyk-k100.jpg'));
    const { bytes } = await printed(
      a,
      shopA,
      await project(
        tokenA,
        'DIG-A6',
        design([
          {
            type: 'image',
            src: dataUrl('image/jpeg', jpeg),
            x: 10,
            y: 10,
            width: 60,
            height: 40,
            rotation: 0,
          },
        ]),
      ),
    );
    expect(listImages(bytes).map((i) => i.color)).toEqual(['cmyk']);
    // points from the media box's top left: bleed 3 mm, then the layer at 10/10 mm
    const at = (xMm: number, yMm: number) => cmykAt(bytes, (3 + xMm) * PT, (3 + yMm) * PT);
    expect(await at(20, 30)).toEqual([0, 0, 0, 255]);
    expect(await at(55, 15)).toEqual([255, 0, 0, 0]);
    const orange = await at(55, 40);
    expect(orange[0]).toBe(0);
    expect(orange[1]).toBeGreaterThan(120);
    expect(orange[1]).toBeLessThan(136);
    expect(orange[2]).toBe(255);
    expect(orange[3]).toBe(0);
  }, 60_000);

  it('extends art that reaches the trim into the bleed, so no white shows after cutting', async () => {
    const blue = await sharp({
      create: { width: 1300, height: 600, channels: 3, background: '#1f5fbf' },
    })
      .png()
      .toBuffer();
    const { bytes } = await printed(
      a,
      shopA,
      await project(
        tokenA,
        'DIG-A6',
        design([
          {
            type: 'image',
            src: dataUrl('image/png', blue),
            x: 0,
            y: 0,
            width: 105,
            height: 50,
            rotation: 0,
          },
        ]),
      ),
    );
    // the bleed left of and above the trim's top left corner: inked, not paper
    const corner = await cmykAt(bytes, 1.5 * PT, 1.5 * PT);
    expect(corner.reduce((s, v) => s + v, 0)).toBeGreaterThan(200);
    // below the layer, inside the trim: paper
    expect(await cmykAt(bytes, 50 * PT, 100 * PT)).toEqual([0, 0, 0, 0]);
  }, 60_000);

  it('refuses at save a design with more colours than a screen-print product has inks', async () => {
    const three = design([
      { type: 'text', text: 'Red', x: 1, y: 1, fontSize: 12, color: '#c8102e' },
      { type: 'text', text: 'Blue', x: 1, y: 10, fontSize: 12, color: '#1f3fbf' },
      { type: 'text', text: 'Green', x: 1, y: 20, fontSize: 12, color: '#1f9f3f' },
    ]);
    const body = await refused(t, call, 400, 'POST', '/editor/projects', {
      headers: { authorization: `Bearer ${tokenA}` },
      body: { name: 'P', sku: 'SCR-2', supplier: 'supplier-a', design: three },
    });
    expect(body.code).toBe('too_many_colours');
    expect(body.detail).toMatch(/3 colours \(#c8102e, #1f3fbf, #1f9f3f\).*2 inks/);
    const photo = await sharp({
      create: {
        width: 300,
        height: 200,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 60 },
      },
    })
      .png()
      .toBuffer();
    const refusedPhoto = await refused(t, call, 400, 'POST', '/editor/projects', {
      headers: { authorization: `Bearer ${tokenA}` },
      body: {
        name: 'P',
        sku: 'SCR-2',
        supplier: 'supplier-a',
        design: design([
          { type: 'image', src: dataUrl('image/png', photo), x: 0, y: 0, width: 40, height: 30 },
        ]),
      },
    });
    expect(refusedPhoto.detail).toMatch(/cannot be printed with 2 inks/);
    // the same design on a digital product is fine
    expect((await saveProject(tokenA, 'DIG-A6', three)).status).toBe(201);
  }, 60_000);

  it('prints a 2-colour screen-print item as exactly 2 spot plates, named by the design, and empty process plates', async () => {
    const logo = await png(
      '<svg width="400" height="200"><circle cx="100" cy="100" r="80" fill="#c8102e"/><rect x="220" y="40" width="150" height="120" fill="#1a2b3c"/></svg>',
    );
    const { order, bytes } = await printed(
      a,
      shopA,
      await project(
        tokenA,
        'SCR-2',
        design(
          [
            {
              type: 'image',
              src: dataUrl('image/png', logo),
              x: 5,
              y: 5,
              width: 40,
              height: 20,
              rotation: 0,
            },
            { type: 'text', text: 'Team 2026', x: 50, y: 30, fontSize: 14, color: '#c8102e' },
          ],
          { inks: [{ color: '#c8102e', name: 'PANTONE 186 C' }] },
        ),
      ),
    );
    const plates = await separations(bytes, { bleedBoxOnly: true });
    const spots = plates.filter((p) => !['Cyan', 'Magenta', 'Yellow', 'Black'].includes(p.name));
    expect(spots).toEqual([
      { name: 'PANTONE 186 C', inked: true },
      { name: 'Spot 1 #1A2B3C', inked: true },
    ]);
    expect(plates.filter((p) => ['Cyan', 'Magenta', 'Yellow', 'Black'].includes(p.name))).toEqual(
      ['Black', 'Cyan', 'Magenta', 'Yellow'].map((name) => ({ name, inked: false })),
    );
    expect(order.items[0].preflight).toMatchObject({
      passed: true,
      plates: ['PANTONE 186 C', 'Spot 1 #1A2B3C'],
    });
    expect(qpdfCheck(bytes)).toMatch(/No syntax or stream encoding errors/);
    expect(decodeBarcodes(bytes)).toEqual([[order.items[0].orderItemId]]);
  }, 60_000);

  /**
   * Replays of every print method, ten times in a row: the order of issue 21 (a digital
   * item on two areas and a 2-colour screen-print item, whose spot colours once came out
   * in another order when a colour lookup was cached), and the same with a pad-printed
   * and an engraved item beside them.
   */
  describe('replays of every print method', () => {
    const text = (t: string, color: string, y = 5) => ({
      type: 'text',
      text: t,
      x: 5,
      y,
      fontSize: 14,
      color,
    });
    async function orderOf(items: { projectId: string; quantity: number }[]) {
      const orderId = `RP-${randomUUID().slice(0, 8)}`;
      const r = await call('POST', '/webhook/notifyorder', {
        key: shopA.apiKey,
        body: {
          orderId,
          customer: { name: 'Erika Mustermann' },
          items: items.map((item, n) => ({ itemId: `line-${n + 1}`, ...item })),
        },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const order = await until(`order ${orderId}`, async () => {
        const o = await call('GET', `/api/orders/${orderId}`, { key: a.adminApiKey });
        return ['ready', 'failed'].includes(o.body?.status) ? o.body : undefined;
      });
      expect(order.status, JSON.stringify(order)).toBe('ready');
      for (const item of order.items) {
        const file = item.printFiles[0];
        const res = await fetch(file.url.replace(/^http:\/\/[^/]+/, t.url), {
          headers: { 'x-api-key': a.adminApiKey },
        });
        const bytes = new Uint8Array(await res.arrayBuffer());
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
      }
      return order;
    }
    async function replayedTenTimes(orderId: string, itemCount: number) {
      for (let run = 1; run <= 10; run++) {
        const replay = await call('POST', `/api/orders/${encodeURIComponent(orderId)}/replay`, {
          key: a.adminApiKey,
        });
        expect(replay.status).toBe(202);
        const results = await workflowResult(t, replay.body.workflowId);
        expect(results, `replay ${run}`).toHaveLength(itemCount);
        for (const r of results) expect(r, `replay ${run}`).toMatchObject({ matches: true });
      }
      const after = await call('GET', `/api/orders/${encodeURIComponent(orderId)}/history`, {
        key: a.adminApiKey,
      });
      expect(after.status).toBe(200);
      expect(JSON.stringify(after.body)).not.toContain('PrintFileMismatchDetected');
    }
    let digital: string;
    let screen: string;
    beforeAll(async () => {
      const photo = await sharp({
        create: { width: 600, height: 400, channels: 3, background: '#3a7bd5' },
      })
        .png()
        .toBuffer();
      digital = await project(tokenA, 'DIG-FB', {
        areas: [
          {
            printArea: 'FRONT',
            layers: [
              {
                type: 'image',
                src: dataUrl('image/png', photo),
                x: 5,
                y: 5,
                width: 60,
                height: 40,
              },
              text('Front', '#000000', 50),
            ],
          },
          { printArea: 'BACK', layers: [text('Back', '#000000')] },
        ],
      });
      screen = await project(
        tokenA,
        'SCR-BLK',
        design([text('Red ink', '#e30613'), text('Black ink', '#000000', 25)]),
      );
    }, 60_000);

    it('the digital and screen-print order of issue 21 replays identical ten times', async () => {
      const order = await orderOf([
        { projectId: digital, quantity: 5 },
        { projectId: screen, quantity: 50 },
      ]);
      expect(order.items[1].preflight.plates).toEqual(['Spot 1 #E30613', 'Spot 2 #000000']);
      await replayedTenTimes(order.orderId, 2);
    }, 240_000);

    it('with a pad-printed and an engraved item beside them, too', async () => {
      const pad = await project(tokenA, 'PAD-1', design([text('Pad', '#002d72')]));
      const engraved = await project(tokenA, 'ENG-1', design([text('Engraved', '#000000')]));
      const order = await orderOf([
        { projectId: digital, quantity: 5 },
        { projectId: screen, quantity: 50 },
        { projectId: pad, quantity: 100 },
        { projectId: engraved, quantity: 10 },
      ]);
      await replayedTenTimes(order.orderId, 4);
    }, 300_000);
  });

  it('makes and replays an order recorded before PDF/X with the renderer it was made by', async () => {
    const orderId = `OLD-${randomUUID().slice(0, 8)}`;
    const orderItemId = randomUUID();
    // an OrderReceived as the service wrote it before print settings existed (v2)
    await t.app.store.append(
      orderStream(a.labelId, orderId),
      [
        {
          id: randomUUID(),
          type: 'OrderReceived',
          schemaVersion: 2,
          data: {
            orderId,
            labelId: a.labelId,
            bodyHash: 'h',
            source: { channel: 'shop' },
            customer: null,
            items: [
              {
                orderItemId,
                itemId: 'line-1',
                projectId: randomUUID(),
                quantity: 1,
                sku: 'DIG-A6',
                supplier: 'supplier-a',
                printMethod: 'digital',
                printColors: 4,
                printAreas: [{ code: 'FRONT', name: 'Front', ...A6 }],
                design: design([
                  {
                    type: 'text',
                    text: 'Made in 2025',
                    x: 5,
                    y: 5,
                    fontSize: 12,
                    color: '#1f5fbf',
                  },
                ]),
              },
            ],
            receivedAt: new Date().toISOString(),
            renderDueAt: new Date(Date.now() + 1_800_000).toISOString(),
          },
          metadata: { actor: 'test', labelId: a.labelId },
        },
      ],
      'no_stream',
    );
    const order = await until(`order ${orderId}`, async () => {
      const o = await call('GET', `/api/orders/${orderId}`, { key: a.adminApiKey });
      return o.body?.status === 'ready' ? o.body : undefined;
    });
    const res = await fetch(order.items[0].printFiles[0].url.replace(/^http:\/\/[^/]+/, t.url), {
      headers: { 'x-api-key': a.adminApiKey },
    });
    const bytes = new Uint8Array(await res.arrayBuffer());
    // the first renderer's file: PDF 1.7, RGB, no output intent, no preflight
    expect(pdfInfo(bytes)['PDF version']).toBe('1.7');
    expect(Buffer.from(bytes).toString('latin1')).not.toContain('/OutputIntents');
    expect(order.items[0].preflight).toBeUndefined();
    const replay = await call('POST', `/api/orders/${orderId}/replay`, { key: a.adminApiKey });
    expect(await workflowResult(t, replay.body.workflowId)).toEqual([
      expect.objectContaining({ orderItemId, matches: true }),
    ]);
  }, 60_000);

  describe('an output profile of the print shop’s', () => {
    it('refuses what is not a CMYK output profile, with 400 and nothing changed', async () => {
      const put = (body: Buffer) =>
        refused(t, call, 400, 'PUT', '/api/print-settings/output-profile', {
          key: b.adminApiKey,
          raw: body.toString('latin1'),
          headers: { 'content-type': 'application/vnd.iccprofile' },
        });
      // raw is sent as text; binary profiles go through fetch below
      const send = async (body: Buffer, key = b.adminApiKey) =>
        fetch(`${t.url}/api/print-settings/output-profile`, {
          method: 'PUT',
          headers: { 'x-api-key': key, 'content-type': 'application/vnd.iccprofile' },
          body,
        });
      const rgb = await send(readFileSync(GS_RGB));
      expect(rgb.status).toBe(400);
      expect(await rgb.json()).toMatchObject({
        code: 'invalid_icc_profile',
        detail: expect.stringMatching(/not an output \(prtr\) profile|not CMYK/),
      });
      const broken = readFileSync(GS_CMYK).subarray(0, 5000);
      expect((await send(broken)).status).toBe(400);
      await put(Buffer.from('not a profile at all'));
      const settings = await call('GET', '/api/print-settings', { key: b.adminApiKey });
      expect(settings.body.outputProfile.default).toBe(true);
    });

    it('converts with the uploaded profile, names it in the output intent, and replays byte-identically with marks', async () => {
      const coloured = await sharp({
        create: { width: 600, height: 400, channels: 3, background: '#3fa05a' },
      })
        .png()
        .toBuffer();
      const d = design([
        {
          type: 'image',
          src: dataUrl('image/png', coloured),
          x: 10,
          y: 10,
          width: 60,
          height: 40,
          rotation: 0,
        },
      ]);
      const before = await printed(b, shopB, await project(tokenB, 'DIG-A6', d));
      const up = await fetch(`${t.url}/api/print-settings/output-profile`, {
        method: 'PUT',
        headers: { 'x-api-key': b.adminApiKey, 'content-type': 'application/vnd.iccprofile' },
        body: readFileSync(GS_CMYK),
      });
      expect(up.status).toBe(200);
      const settings = (await up.json()) as {
        outputProfile: { sha256: string; description: string };
      };
      expect(settings.outputProfile).toMatchObject({
        default: false,
        sha256: createHash('sha256').update(readFileSync(GS_CMYK)).digest('hex'),
      });
      const marks = await call('PUT', `/operator/labels/${b.labelId}/print-settings`, {
        key: t.operatorKey,
        body: { cropMarks: true },
      });
      expect(marks.status).toBe(200);
      const after = await printed(b, shopB, await project(tokenB, 'DIG-A6', d));
      // the same green, another output condition: other CMYK
      const at = (bytes: Uint8Array, m: number) =>
        cmykAt(bytes, (m + 3 + 30) * PT, (m + 3 + 30) * PT);
      const g1 = await at(before.bytes, 0);
      const g2 = await at(after.bytes, 10); // crop marks move the page by 10 mm
      expect(g1).not.toEqual(g2);
      expect(Buffer.from(after.bytes).toString('latin1')).toContain(
        `/OutputConditionIdentifier (${settings.outputProfile.description})`,
      );
      // crop marks: the page grows by 10 mm on each side, the trim stays the area
      const [box] = await pageBoxes(after.bytes);
      expect(box!.trim.width).toBeCloseTo(A6.widthMm * PT, 1);
      expect(box!.media.width).toBeCloseTo((A6.widthMm + 6 + 20) * PT, 1);
      // a replay renders it again from the events, bit for bit
      const replay = await call('POST', `/api/orders/${after.orderId}/replay`, {
        key: b.adminApiKey,
      });
      expect(replay.status).toBe(202);
      const results = await workflowResult(t, replay.body.workflowId);
      expect(results).toEqual([expect.objectContaining({ matches: true })]);
      // the profile outlives image clean-ups: orders replay with it
      const { removeUnheldImages } = await import('../../src/app/image-cleanup.ts');
      await removeUnheldImages({ ...t.app.context, runner: t.app.runner }, 0);
      expect(await t.app.images.get(`icc/${settings.outputProfile.sha256}`)).toBeDefined();
    }, 120_000);
  });
});

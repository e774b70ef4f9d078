import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import { PDFArray, type PDFDict, PDFDocument, PDFName, type PDFRawStream } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, client, startTestApp, type TestApp } from '../helpers/app.ts';
import { config, importDone, opsLogin } from '../helpers/fixtures.ts';
import { anotherLabelServed, expectOthersServed, FAR, watchLoop } from '../helpers/loop-watch.ts';
import { accessOf, orderDone, type Shop, setUpShop, until } from '../helpers/orders.ts';
import { decodeBarcodes } from '../helpers/pdf.ts';
import { XJDF_SCHEMAS, xjdfErrors } from '../helpers/xjdf.ts';

const PT = 72 / 25.4;
type Rect = { x: number; y: number; w: number; h: number };
type Placement = {
  orderItemId: string;
  copy: number;
  page: number;
  xMm: number;
  yMm: number;
  widthMm: number;
  heightMm: number;
  rotated: boolean;
};
const overlap = (a: Rect, b: Rect, eps = 1e-6) =>
  a.x < b.x + b.w - eps && b.x < a.x + a.w - eps && a.y < b.y + b.h - eps && b.y < a.y + a.h - eps;
const rectOf = (p: Placement): Rect => ({ x: p.xMm, y: p.yMm, w: p.widthMm, h: p.heightMm });

/** A page's content, decompressed, as PDF operators in text. */
async function contentOf(
  pdf: Uint8Array,
): Promise<{ text: string; width: number; height: number }> {
  const doc = await PDFDocument.load(pdf);
  const page = doc.getPage(0);
  const c = page.node.Contents();
  const streams = c instanceof PDFArray ? c.asArray().map((r) => doc.context.lookup(r)) : [c];
  const text = streams
    .map((s) => {
      const raw = s as PDFRawStream;
      const filter = raw.dict.get(PDFName.of('Filter'));
      return Buffer.from(filter ? inflateSync(raw.contents) : raw.contents).toString('latin1');
    })
    .join('\n');
  const { width, height } = page.getSize();
  return { text, width, height };
}

/** The line segments drawn inside the `/CropMarks` marked content, in mm from the top left. */
function cropMarks(text: string, heightPt: number) {
  const start = text.indexOf('/CropMarks BMC');
  const end = text.indexOf('EMC', start);
  expect(start).toBeGreaterThan(-1);
  const body = text.slice(start, end);
  return [...body.matchAll(/([\d.-]+) ([\d.-]+) m\s+([\d.-]+) ([\d.-]+) l/g)].map((m) => ({
    x1: Number(m[1]) / PT,
    y1: (heightPt - Number(m[2])) / PT,
    x2: Number(m[3]) / PT,
    y2: (heightPt - Number(m[4])) / PT,
  }));
}

/** Ghostscript's separations of a PDF: plate name -> darkest pixel (255: nothing on it). */
async function plates(pdf: Uint8Array): Promise<Map<string, number>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sep-'));
  try {
    writeFileSync(path.join(dir, 'f.pdf'), pdf);
    execFileSync('gs', [
      '-q',
      '-dNOPAUSE',
      '-dBATCH',
      '-sDEVICE=tiffsep',
      '-r20',
      `-sOutputFile=${path.join(dir, 'p.tif')}`,
      path.join(dir, 'f.pdf'),
    ]);
    const out = new Map<string, number>();
    for (const f of readdirSync(dir)) {
      const m = /^p\((.+)\)\.tif$/.exec(f);
      if (!m) continue;
      const stats = await sharp(path.join(dir, f)).stats();
      out.set(m[1]!, stats.channels[0]!.min);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function tool(cmd: string, args: string[], pdf: Uint8Array): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tool-'));
  try {
    writeFileSync(path.join(dir, 'f.pdf'), pdf);
    return execFileSync(cmd, [...args, path.join(dir, 'f.pdf')], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Press runs over real HTTP against the real PostgreSQL and Temporal: business cards
 * step-and-repeat on SRA3 and stickers nested on a roll, read back with poppler, zbar,
 * qpdf, Ghostscript and an XML parser; scans of the sheets' slugs, cancel, replay, the
 * hot folder and a batching rule.
 */
describe('press runs', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let shop: Shop;
  let other: Shop;
  let cardSku: string;
  const stickerSkus: { sku: string; w: number; h: number }[] = [];
  let cards: { orderItemId: string; quantity: number }[] = [];
  const stickers: { orderItemId: string; quantity: number }[] = [];

  const ful = (s: Shop = shop) => ({ key: s.fulfillmentKey });
  const bytes = async (p: string, key: string) => {
    const r = await fetch(`${t.url}${p}`, { headers: { 'x-api-key': key } });
    expect(r.status, p).toBe(200);
    return new Uint8Array(await r.arrayBuffer());
  };
  const batch = (id: string, s: Shop = shop) =>
    call('GET', `/v1/production/batches/${id}`, ful(s)).then((r) => r.body);
  const settledBatch = (id: string) =>
    until(
      `batch ${id} imposed`,
      async () => {
        const b = await batch(id);
        return ['imposed', 'failed', 'printed', 'cancelled'].includes(b.status) ? b : undefined;
      },
      120_000,
    );

  /** A project of `sku` with a coloured rectangle and a line of text, for items to print. */
  const project = async (sku: string, n: number) => {
    const r = await until('the project', async () => {
      const x = await call('POST', '/editor/projects', {
        headers: { authorization: `Bearer ${shop.token}` },
        body: {
          name: `${sku}-${n}`,
          sku,
          supplier: 'supplier-b',
          design: {
            areas: [
              {
                printArea: 'FRONT',
                layers: [
                  { type: 'text', text: `${sku} #${n}`, x: 2, y: 2, fontSize: 9, color: '#c00000' },
                ],
              },
            ],
          },
        },
      });
      return x.status === 201 ? x : undefined;
    });
    return r.body.id as string;
  };
  /** One order of the items; answers its order items with their quantities. */
  const order = async (items: { projectId: string; quantity: number }[]) => {
    const orderId = `B-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.shopKey,
      body: {
        orderId,
        items: items.map((i, n) => ({
          itemId: `i${n}`,
          projectId: i.projectId,
          quantity: i.quantity,
        })),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const done = await orderDone(call, shop, orderId, 180_000);
    expect(done.status).toBe('ready');
    return (done.items as { orderItemId: string; quantity: number }[]).map((i, n) => ({
      orderItemId: i.orderItemId,
      quantity: items[n]!.quantity,
    }));
  };

  beforeAll(async () => {
    t = await startTestApp({ BATCHING_SWEEP_MS: '500' });
    call = client(t.url);
    shop = await setUpShop(call, accessOf(t), 0);
    other = await setUpShop(call, accessOf(t), 1);
    cardSku = `BC-${randomUUID().slice(0, 6)}`;
    const sizes = [
      [20, 20],
      [150, 40],
      [60, 90],
      [35, 120],
      [100, 100],
      [45, 30],
      [80, 55],
      [25, 140],
      [120, 70],
      [50, 50],
    ];
    for (const [w, h] of sizes)
      stickerSkus.push({ sku: `ST-${w}x${h}-${randomUUID().slice(0, 4)}`, w: w!, h: h! });
    const imp = await call('POST', '/operator/catalog/supplier-b', {
      key: t.operatorKey,
      body: [
        config(cardSku, {
          printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 85, heightMm: 55 }],
        }),
        ...stickerSkus.map((s) =>
          config(s.sku, {
            printMethod: 'digital',
            printAreas: [{ code: 'FRONT', name: 'Front', widthMm: s.w, heightMm: s.h }],
          }),
        ),
      ],
    });
    expect(imp.status, JSON.stringify(imp.body)).toBe(202);
    await importDone(call, `/operator/catalog/imports/${imp.body.importId}`, t.operatorKey, 90_000);
    // 40 cards of 1-3 copies, in 4 orders of 10
    const cardProjects = await Promise.all(
      Array.from({ length: 10 }, (_, n) => project(cardSku, n)),
    );
    for (let o = 0; o < 4; o++)
      cards.push(
        ...(await order(
          cardProjects.map((projectId, n) => ({ projectId, quantity: 1 + ((n + o) % 3) })),
        )),
      );
    // 40 stickers of 10 sizes whose quantities make 200 copies, in 2 orders of 20
    const stickerProjects = await Promise.all(stickerSkus.map((s, n) => project(s.sku, n)));
    for (let o = 0; o < 2; o++)
      stickers.push(
        ...(await order(
          Array.from({ length: 20 }, (_, n) => ({
            projectId: stickerProjects[n % 10]!,
            quantity: n % 2 === 0 ? 4 : 6,
          })),
        )),
      );
    cards = cards.slice(0, 40);
  }, 600_000);
  afterAll(async () => {
    await t?.stop();
  });

  it('imposes 40 business cards step-and-repeat on SRA3, every copy once, read back with poppler, zbar and qpdf', async () => {
    const hot = await call('PUT', '/api/production/batching', {
      key: shop.adminKey,
      body: { rules: [], hotFolder: 'press-1' },
    });
    expect(hot.status, JSON.stringify(hot.body)).toBe(200);
    const r = await call('POST', '/v1/production/batches', {
      ...ful(),
      body: {
        items: cards.map((c) => c.orderItemId),
        media: { preset: 'SRA3' },
        mode: 'step-repeat',
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body).toMatchObject({ candidates: 40, refused: [] });
    const b = await settledBatch(r.body.batchId);
    expect(b.status, b.failure).toBe('imposed');
    const copies = cards.reduce((a, c) => a + c.quantity, 0);
    const placed = b.sheets.flatMap(
      (s: { placements: Placement[] }) => s.placements,
    ) as Placement[];
    expect(placed).toHaveLength(copies);
    expect(new Set(placed.map((p) => `${p.orderItemId}/${p.copy}`)).size).toBe(copies);
    for (const c of cards)
      expect(placed.filter((p) => p.orderItemId === c.orderItemId)).toHaveLength(c.quantity);
    // 21-up: 3 x 7 cards of 91 x 61 mm with their bleed
    expect(b.sheets[0].placements).toHaveLength(21);
    expect(b.sheetCount).toBe(Math.ceil(copies / 21));
    expect(b.sheetCount).toBeLessThanOrEqual(Math.ceil(b.lowerBound * 1.1));
    expect(placed.every((p) => p.widthMm === 91 && p.heightMm === 61)).toBe(true);

    for (const s of b.sheets) {
      const pdf = await bytes(
        `/v1/production/batches/${b.batchId}/sheets/${s.n}`,
        shop.fulfillmentKey,
      );
      const info = tool('pdfinfo', [], pdf);
      // 320 x 450 mm, PDF/X-4 by poppler's own reading
      expect(info).toMatch(/Page size:\s+907\.0[89]\d* x 1275\.59\d* pts/);
      expect(info).toMatch(/PDF subtype:\s+PDF\/X-4/);
      expect(info).toMatch(/PDF version:\s+1\.6/);
      expect(tool('qpdf', ['--check'], pdf)).toMatch(/No syntax or stream encoding errors/);
      const json = JSON.parse(tool('qpdf', ['--json', '--json-key=qpdf'], pdf));
      const objects = JSON.stringify(json);
      expect(objects).toContain('/GTS_PDFX');
      expect(objects).toContain('/DestOutputProfile');
      expect(decodeBarcodes(pdf)[0]).toContain(
        `B${b.batchId.replace(/-/g, '').slice(0, 12).toUpperCase()}S${s.n}`,
      );
      // cut marks: none inside any piece's bleed, none beyond the sheet
      const { text, height } = await contentOf(pdf);
      const marks = cropMarks(text, height);
      expect(marks.length).toBeGreaterThan(0);
      for (const m of marks) {
        const seg = {
          x: Math.min(m.x1, m.x2),
          y: Math.min(m.y1, m.y2),
          w: Math.max(Math.abs(m.x2 - m.x1), 1e-3),
          h: Math.max(Math.abs(m.y2 - m.y1), 1e-3),
        };
        for (const p of s.placements as Placement[])
          expect(overlap(seg, rectOf(p), 0.01)).toBe(false);
        expect(seg.x).toBeGreaterThanOrEqual(0);
        expect(seg.x + seg.w).toBeLessThanOrEqual(320.01);
      }
    }

    // the job sheet: the batch's barcode and every item's
    const jobSheet = await bytes(
      `/v1/production/batches/${b.batchId}/job-sheet`,
      shop.fulfillmentKey,
    );
    const read = decodeBarcodes(jobSheet).flat();
    expect(read).toContain(`B${b.batchId.replace(/-/g, '').slice(0, 12).toUpperCase()}`);
    for (const c of cards) expect(read).toContain(c.orderItemId);

    // the ticket: XJDF 2.0 naming every sheet and the copies
    const xml = Buffer.from(
      await bytes(`/v1/production/batches/${b.batchId}/ticket.xjdf`, shop.fulfillmentKey),
    ).toString('utf8');
    // valid against CIP4's own schema, as a controller that validates its input checks it
    for (const version of XJDF_SCHEMAS) expect(xjdfErrors(xml, version), version).toEqual([]);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    const x = parsed.XJDF;
    expect(x.xmlns).toBe('http://www.CIP4.org/JDFSchema_2_0');
    expect(x.Version).toBe('2.0');
    const sets = [x.ResourceSet].flat();
    const runList = sets.find((s: { Name: string }) => s.Name === 'RunList');
    const named = [runList.Resource]
      .flat()
      .map((r: { Part: { SheetName: string } }) => r.Part.SheetName);
    expect(named).toEqual(b.sheets.map((s: { n: number }) => `Sheet-${s.n}`));
    const products = [x.ProductList.Product].flat();
    expect(products).toHaveLength(40);
    expect(products.reduce((a: number, p: { Amount: string }) => a + Number(p.Amount), 0)).toBe(
      copies,
    );
    const cutting = sets.find((s: { Name: string }) => s.Name === 'CuttingParams');
    const blocks = [cutting.Resource]
      .flat()
      .flatMap((r: { CuttingParams: { CutBlock: unknown } }) => [r.CuttingParams.CutBlock].flat());
    expect(blocks).toHaveLength(copies);

    // the hot folder: every file, the manifest last
    const delivered = await until(
      'the hot folder',
      async () => (await batch(b.batchId)).hotFolder ?? undefined,
    );
    expect(delivered.files).toContain('manifest.json');
    const listed = await t.app.storage.list(delivered.location);
    expect(listed.map((k) => k.split('/').at(-1)).sort()).toEqual([...delivered.files].sort());

    // the items are batched; a scan of sheet 1's slug prints the items on it
    const batched = await until('the cards batched', async () => {
      const stages = await t.app.db.pool.query<{ stage: string }>(
        'SELECT stage FROM rm_order_items WHERE order_item_id = ANY($1::uuid[])',
        [cards.map((c) => c.orderItemId)],
      );
      return stages.rows.every((x) => x.stage === 'batched') ? stages.rows.length : undefined;
    });
    expect(batched).toBe(40);
    const code = `B${b.batchId.replace(/-/g, '').slice(0, 12).toUpperCase()}S1`;
    const scanned = await call('POST', '/v1/production/scans', {
      ...ful(),
      body: { code, stage: 'printed', station: 'Press 1' },
    });
    expect(scanned.status, JSON.stringify(scanned.body)).toBe(200);
    const onSheet = [...new Set((b.sheets[0].placements as Placement[]).map((p) => p.orderItemId))];
    expect(scanned.body).toMatchObject({ batchId: b.batchId, sheet: 1, stage: 'printed' });
    expect([...scanned.body.orderItemIds].sort()).toEqual(onSheet.sort());
    await until('the items printed', async () => {
      const stages = await t.app.db.pool.query<{ stage: string }>(
        'SELECT stage FROM rm_order_items WHERE order_item_id = ANY($1::uuid[])',
        [onSheet],
      );
      return stages.rows.every((x) => x.stage === 'printed') ? true : undefined;
    });
    // another label's key finds nothing
    expect((await call('GET', `/v1/production/batches/${b.batchId}`, ful(other))).status).toBe(404);
    const stranger = await call('POST', '/v1/production/scans', {
      ...ful(other),
      body: { code, stage: 'printed' },
    });
    expect(stranger.status).toBe(404);

    // replayed: the same sheets, byte for byte
    const replay = await call('POST', `/v1/production/batches/${b.batchId}/replay`, ful());
    expect(replay.status).toBe(202);
    const replayed = await until(
      'the replay',
      async () => {
        const r2 = (await batch(b.batchId)).replays.find(
          (x: { replayId: string }) => x.replayId === replay.body.replayId,
        );
        return r2?.at ? r2 : undefined;
      },
      120_000,
    );
    expect(replayed.matches).toBe(true);
    expect(replayed.sheets).toHaveLength(b.sheets.length);
    for (const s of replayed.sheets) expect(s.actual).toBe(s.expected);

    // the ops page: the batch with its utilisation, each sheet with its preview and items
    const cookie = await opsLogin(t.url, shop.adminKey);
    const page = async (p: string) => {
      const r = await fetch(`${t.url}${p}`, { headers: { cookie } });
      expect(r.status, p).toBe(200);
      return r;
    };
    const list = await (await page('/ops/batches')).text();
    expect(list).toContain(`data-batch="${b.batchId}"`);
    expect(list).toContain(`${(b.utilisation * 100).toFixed(1)}%`);
    const detail = await (await page(`/ops/labels/${shop.labelId}/batches/${b.batchId}`)).text();
    for (const s of b.sheets) expect(detail).toContain(`data-sheet="${s.n}"`);
    expect(detail).toContain('every sheet the same, byte for byte');
    const preview = await page(`/ops/labels/${shop.labelId}/batches/${b.batchId}/sheets/1/preview`);
    expect(preview.headers.get('content-type')).toBe('image/png');
    const png = await sharp(Buffer.from(await preview.arrayBuffer())).metadata();
    expect(png.width).toBeGreaterThan(100);
    // another label's admin finds nothing
    const otherCookie = await opsLogin(t.url, other.adminKey);
    const foreign = await fetch(`${t.url}/ops/labels/${shop.labelId}/batches/${b.batchId}`, {
      headers: { cookie: otherCookie },
    });
    expect(foreign.status).toBe(404);
  }, 400_000);

  it('nests 200 stickers of 10 sizes on a 560 mm roll: no overlap, inside the margins, CutContour plates', async () => {
    const r = await call('POST', '/v1/production/batches', {
      ...ful(),
      body: {
        items: stickers.map((s) => s.orderItemId),
        media: { preset: 'roll-560mm' },
        mode: 'gang',
        allowRotation: true,
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const b = await settledBatch(r.body.batchId);
    expect(b.status, b.failure).toBe('imposed');
    const placed = b.sheets.flatMap(
      (s: { placements: Placement[] }) => s.placements,
    ) as Placement[];
    expect(placed).toHaveLength(200);
    expect(placed.some((p) => p.rotated)).toBe(true);
    const rollTicket = Buffer.from(
      await bytes(`/v1/production/batches/${b.batchId}/ticket.xjdf`, shop.fulfillmentKey),
    ).toString('utf8');
    for (const version of XJDF_SCHEMAS) expect(xjdfErrors(rollTicket, version)).toEqual([]);
    for (const s of b.sheets) {
      const ps = s.placements as Placement[];
      for (const [i, a] of ps.entries()) {
        expect(a.xMm).toBeGreaterThanOrEqual(5);
        expect(a.yMm).toBeGreaterThanOrEqual(5);
        expect(a.xMm + a.widthMm).toBeLessThanOrEqual(555 + 1e-6);
        expect(a.yMm + a.heightMm).toBeLessThanOrEqual(s.heightMm - 5 + 1e-6);
        for (const c of ps.slice(i + 1)) expect(overlap(rectOf(a), rectOf(c))).toBe(false);
      }
      const pdf = await bytes(
        `/v1/production/batches/${b.batchId}/sheets/${s.n}`,
        shop.fulfillmentKey,
      );
      // the cut contours as the PDF draws them: one per piece, none overlapping
      const { text, height } = await contentOf(pdf);
      const cut = text.slice(
        text.indexOf('/CSCut CS'),
        text.indexOf('Q', text.indexOf('/CSCut CS')),
      );
      const contours = [...cut.matchAll(/([\d.-]+) ([\d.-]+) ([\d.-]+) ([\d.-]+) re/g)].map(
        (m) => ({
          x: Number(m[1]) / PT,
          y: (height - Number(m[2]) - Number(m[4])) / PT,
          w: Number(m[3]) / PT,
          h: Number(m[4]) / PT,
        }),
      );
      expect(contours).toHaveLength(ps.length);
      for (const [i, a] of contours.entries())
        for (const c of contours.slice(i + 1)) expect(overlap(a, c, 0.01)).toBe(false);
      const seps = await plates(pdf);
      expect(seps.has('CutContour')).toBe(true);
      expect(seps.get('CutContour')!).toBeLessThan(255);
    }
    // a second batch cannot take them; cancelling the first frees them
    const again = await call('POST', '/v1/production/batches', {
      ...ful(),
      body: { items: [stickers[0]!.orderItemId], media: { preset: 'roll-560mm' }, mode: 'gang' },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('nothing_to_batch');
    const cancel = await call('POST', `/v1/production/batches/${b.batchId}/cancel`, {
      ...ful(),
      body: { reason: 'wrong roll loaded' },
    });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    await until('the stickers ready again', async () => {
      const stages = await t.app.db.pool.query<{ stage: string }>(
        'SELECT stage FROM rm_order_items WHERE order_item_id = ANY($1::uuid[])',
        [stickers.map((s) => s.orderItemId)],
      );
      return stages.rows.every((x) => x.stage === 'ready') ? true : undefined;
    });

    // a rule opens the next batch by itself
    const rule = await call('PUT', '/api/production/batching', {
      key: shop.adminKey,
      body: {
        rules: [
          {
            name: 'stickers',
            filter: { sku: stickerSkus[0]!.sku },
            media: { preset: 'roll-560mm' },
            mode: 'gang',
            everyMinutes: 1,
          },
          {
            name: 'full',
            filter: { sku: stickerSkus[2]!.sku },
            media: { widthMm: 150, heightMm: 200 },
            mode: 'gang',
            whenSheetFull: true,
          },
        ],
        hotFolder: null,
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    const byRule = await until('a batch opened by the rule', async () => {
      const list = (await call('GET', '/v1/production/batches', ful())).body.batches;
      return list.find((x: { source: string }) => x.source === 'rule stickers');
    });
    const ruled = await settledBatch(byRule.batchId);
    expect(ruled.status).toBe('imposed');
    expect(ruled.items.every((i: { sku: string }) => i.sku === stickerSkus[0]!.sku)).toBe(true);
    expect(ruled.items.length).toBe(4);
    // the other rule opens its batch as soon as its items fill more than a sheet
    const full = await until('a batch opened by the full-sheet rule', async () => {
      const list = (await call('GET', '/v1/production/batches', ful())).body.batches;
      return list.find((x: { source: string }) => x.source === 'rule full');
    });
    const filled = await settledBatch(full.batchId);
    expect(filled.status, filled.failure).toBe('imposed');
    expect(filled.sheetCount).toBeGreaterThan(1);
    expect(filled.items.every((i: { sku: string }) => i.sku === stickerSkus[2]!.sku)).toBe(true);
    // the rules go, or they would batch the later tests' stickers before those tests do
    const none = await call('PUT', '/api/production/batching', {
      key: shop.adminKey,
      body: { rules: [], hotFolder: null },
    });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
  }, 400_000);

  it('refuses bad batches with problem details and records nothing', async () => {
    const before = await t.app.db.pool.query('SELECT count(*)::int AS n FROM es_events');
    const bad = [
      { media: { preset: 'SRA3' } },
      {
        items: [cards[0]!.orderItemId],
        filter: { sku: 'x' },
        media: { preset: 'SRA3' },
        mode: 'gang',
      },
      { media: { preset: 'B1' }, mode: 'gang' },
      { media: { widthMm: 10, heightMm: 10 }, mode: 'gang' },
      { filter: { sku: 'a\u0000b' }, media: { preset: 'SRA3' }, mode: 'gang' },
      { items: ['not-a-uuid'], media: { preset: 'SRA3' }, mode: 'gang' },
      { items: [], media: { preset: 'SRA3' }, mode: 'gang' },
      { media: { preset: 'SRA3' }, mode: 'gang', marginMm: 49, gutterMm: -1 },
    ];
    for (const body of bad) {
      const r = await call('POST', '/v1/production/batches', { ...ful(), body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
    const foreign = await call('POST', '/v1/production/batches', {
      ...ful(other),
      body: { items: [cards[1]!.orderItemId], media: { preset: 'SRA3' }, mode: 'step-repeat' },
    });
    expect(foreign.status).toBe(409);
    expect(foreign.body.detail).toMatch(/no such order item/);
    expect((await call('GET', `/v1/production/batches/${randomUUID()}`, ful())).status).toBe(404);
    expect(
      (await call('GET', `/v1/production/batches/${randomUUID()}/sheets/1`, ful())).status,
    ).toBe(404);
    const after = await t.app.db.pool.query('SELECT count(*)::int AS n FROM es_events');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('refuses a batch of items made for two output profiles, and imposes each with its own intent', async () => {
    const icc = readFileSync('/usr/share/color/icc/ghostscript/default_cmyk.icc');
    const up = await fetch(`${t.url}/api/print-settings/output-profile`, {
      method: 'PUT',
      headers: { 'x-api-key': shop.adminKey, 'content-type': 'application/vnd.iccprofile' },
      body: icc,
    });
    expect(up.status).toBe(200);
    const [fresh] = await order([
      { projectId: await project(stickerSkus[1]!.sku, 99), quantity: 2 },
    ]);
    const older = stickers[1]!; // of the second sticker size, ready again since the cancel
    const mixed = await call('POST', '/v1/production/batches', {
      ...ful(),
      body: {
        items: [older.orderItemId, fresh!.orderItemId],
        media: { preset: 'SRA3' },
        mode: 'gang',
      },
    });
    expect(mixed.status, JSON.stringify(mixed.body)).toBe(409);
    expect(mixed.body.code).toBe('mixed_output_profiles');
    // alone, the new item's sheet carries the new profile's intent
    const alone = await call('POST', '/v1/production/batches', {
      ...ful(),
      body: { items: [fresh!.orderItemId], media: { preset: 'A3' }, mode: 'gang' },
    });
    expect(alone.status).toBe(202);
    const b = await settledBatch(alone.body.batchId);
    expect(b.status, b.failure).toBe('imposed');
    expect(b.outputProfile).not.toBe(null);
    const pdf = await bytes(`/v1/production/batches/${b.batchId}/sheets/1`, shop.fulfillmentKey);
    const doc = await PDFDocument.load(pdf);
    const intents = doc.catalog.lookup(PDFName.of('OutputIntents'), PDFArray);
    const intent = doc.context.lookup(intents.get(0)) as PDFDict;
    const profile = doc.context.lookup(intent.get(PDFName.of('DestOutputProfile'))) as PDFRawStream;
    expect(createHash('sha256').update(inflateSync(profile.contents)).digest('hex')).toBe(
      createHash('sha256').update(icc).digest('hex'),
    );
  }, 300_000);

  it('imposes a 40,000-copy gang run off the event loop: /readyz green, another label served, a running batch cancelled within 1 s', async () => {
    const sticker = stickerSkus[0]!; // 20 x 20 mm, 26 x 26 with its bleed
    const projectId = await project(sticker.sku, 900);
    const [big] = await order([{ projectId, quantity: 40_000 }]);
    const [second] = await order([{ projectId, quantity: 40_000 }]);
    // this process is the service's: its event loop's delay is the service's
    const watch = watchLoop(t.url);
    const gang = (orderItemId: string) =>
      call('POST', '/v1/production/batches', {
        ...ful(),
        body: { items: [orderItemId], media: { preset: 'SRA3' }, mode: 'gang', gutterMm: 2 },
      });
    const first = await gang(big!.orderItemId);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const other2 = await gang(second!.orderItemId);
    expect(other2.status, JSON.stringify(other2.body)).toBe(202);
    // the second waits behind the first (one imposition of a label at a time), then runs
    await until(
      'the second batch imposing',
      async () => ((await batch(other2.body.batchId)).status === 'imposing' ? true : undefined),
      60_000,
    );
    const cancelBegan = performance.now();
    const cancelled = await call('POST', `/v1/production/batches/${other2.body.batchId}/cancel`, {
      ...ful(),
      body: { reason: 'too many' },
    });
    const cancelMs = performance.now() - cancelBegan;
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(cancelMs).toBeLessThan(FAR.answerMs);
    // another label's sale rendered meanwhile, and its order read quickly
    const otherOrder = `O-${randomUUID().slice(0, 8)}`;
    const sale = await call('POST', '/webhook/notifyorder', {
      key: other.shopKey,
      body: {
        orderId: otherOrder,
        items: [{ itemId: 'l1', projectId: other.projects[0], quantity: 1 }],
      },
    });
    expect(sale.status).toBe(200);
    expect((await orderDone(call, other, otherOrder, 120_000)).status).toBe('ready');
    const readBegan = performance.now();
    const read = await call('GET', `/api/orders/${otherOrder}`, { key: other.adminKey });
    expect(read.status).toBe(200);
    expect(performance.now() - readBegan).toBeLessThan(FAR.readMs);

    const b = await until(
      'the 40,000-copy batch imposed',
      async () => {
        const x = await batch(first.body.batchId);
        return ['imposed', 'failed'].includes(x.status) ? x : undefined;
      },
      400_000,
    );
    const seen = await watch.stop();
    expect(b.status, b.failure).toBe('imposed');
    const ticket = Buffer.from(
      await bytes(`/v1/production/batches/${b.batchId}/ticket.xjdf`, shop.fulfillmentKey),
    ).toString('utf8');
    expect(xjdfErrors(ticket)).toEqual([]);
    expect(ticket.match(/<CutBlock /g)).toHaveLength(40_000);
    const placements = (b.sheets as { placements: Placement[] }[]).flatMap((s) => s.placements);
    expect(placements).toHaveLength(40_000);
    expect(new Set(placements.map((p) => p.copy)).size).toBe(40_000);
    // 11 x 16 of 26 mm with a 2 mm gutter on SRA3's 310 x 440 mm less the slug
    expect(b.sheetCount).toBeLessThanOrEqual(Math.ceil(40_000 / 150));
    console.log(
      `[40,000 copies] ${b.sheetCount} sheets; loop p99 ${seen.p99.toFixed(1)} ms, max ${seen.max.toFixed(0)} ms; /readyz ${seen.readyz.length} asks, slowest ${Math.max(...seen.readyz.map((r) => r.ms)).toFixed(0)} ms; cancel ${cancelMs.toFixed(0)} ms`,
    );
    expect(seen.readyz.filter((r) => r.status !== 200)).toEqual([]);
    expect(seen.p99).toBeLessThan(FAR.loopP99Ms);
    // the cancelled batch let its item go
    const gone = await batch(other2.body.batchId);
    expect(gone.status).toBe('cancelled');
  }, 600_000);

  it('refuses a batch past 50,000 pieces at once, and an Idempotency-Key used for another request', async () => {
    const projectId = await project(stickerSkus[5]!.sku, 901);
    const [huge] = await order([{ projectId, quantity: 100_000 }]);
    const before = await t.app.db.pool.query('SELECT count(*)::int AS n FROM es_events');
    const began = performance.now();
    const r = await call('POST', '/v1/production/batches', {
      ...ful(),
      body: { items: [huge!.orderItemId], media: { preset: 'SRA3' }, mode: 'gang' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.code).toBe('batch_too_large');
    expect(r.body.detail).toMatch(/50000/);
    expect(performance.now() - began).toBeLessThan(FAR.answerMs);
    const after = await t.app.db.pool.query('SELECT count(*)::int AS n FROM es_events');
    expect(after.rows[0].n).toBe(before.rows[0].n);

    const [a, b] = await order([
      { projectId, quantity: 2 },
      { projectId, quantity: 3 },
    ]);
    const key = `idem-${randomUUID()}`;
    const post = (items: string[], mode = 'gang') =>
      call('POST', '/v1/production/batches', {
        ...ful(),
        headers: { 'idempotency-key': key },
        body: { items, media: { preset: 'SRA3' }, mode },
      });
    const once = await post([a!.orderItemId]);
    expect(once.status, JSON.stringify(once.body)).toBe(202);
    const again = await post([a!.orderItemId]);
    expect(again.status).toBe(202);
    expect(again.body.batchId).toBe(once.body.batchId);
    const otherItems = await post([b!.orderItemId]);
    expect(otherItems.status).toBe(409);
    expect(otherItems.body.code).toBe('idempotency_key_reused');
    const otherMode = await post([a!.orderItemId], 'step-repeat');
    expect(otherMode.status).toBe(409);
    await settledBatch(once.body.batchId);
  }, 300_000);

  it('takes 20 racing batch requests for the same items one at a time: no item twice, /readyz green, the rest 429 with Retry-After', async () => {
    const projectId = await project(stickerSkus[6]!.sku, 902);
    const items = await order(Array.from({ length: 30 }, () => ({ projectId, quantity: 2 })));
    const watch = watchLoop(t.url);
    const served = anotherLabelServed(call, other);
    let answers: Answer[];
    try {
      answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          call('POST', '/v1/production/batches', {
            ...ful(),
            body: {
              items: items.map((i) => i.orderItemId),
              media: { preset: 'SRA3' },
              mode: 'gang',
            },
          }),
        ),
      );
    } catch (err) {
      await watch.stop();
      throw err;
    }
    const statuses = answers.map((a) => a.status);
    // taken one at a time; past the label's share at the door (heavy reads) or eight
    // waiting, the others are told when to come back; a later one may find every item
    // taken by an earlier batch already (409 nothing_to_batch)
    const accepted = statuses.filter((s) => s === 202).length;
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThanOrEqual(9);
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(a.body.code).toMatch(/^(too_many_(requests|batches)|over_share)$/);
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    for (const a of answers.filter((x) => x.status === 409))
      expect(a.body.code).toBe('nothing_to_batch');
    expect(
      statuses.every((s) => s === 202 || s === 409 || s === 429),
      String(statuses),
    ).toBe(true);
    const ids = answers.filter((a) => a.status === 202).map((a) => a.body.batchId as string);
    const settled = await Promise.all(ids.map((id) => settledBatch(id)));
    const elsewhere = await served;
    const seen = await watch.stop();
    expectOthersServed(seen, elsewhere);
    // every item taken by exactly one batch
    const taken = settled.flatMap((b) =>
      (b.items as { orderItemId: string }[]).map((i) => i.orderItemId),
    );
    expect(new Set(taken).size).toBe(taken.length);
    expect(new Set(taken)).toEqual(new Set(items.map((i) => i.orderItemId)));
    console.log(
      `[20 racing batches] ${statuses.filter((s) => s === 202).length} accepted, ${statuses.filter((s) => s === 429).length} 429; loop p99 ${seen.p99.toFixed(1)} ms; /readyz slowest ${Math.max(...seen.readyz.map((r) => r.ms)).toFixed(0)} ms`,
    );
  }, 300_000);
});

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { opsLogin, refused } from '../helpers/fixtures.ts';
import { accessOf, type Shop, setUpShop, until } from '../helpers/orders.ts';
import { renderProcesses } from '../helpers/render-processes.ts';
import { XJDF_SCHEMAS, xjdfErrors } from '../helpers/xjdf.ts';

const ROWS = 10_000;
const FIRST = ['Zoë', 'José', 'Renée', 'Åsa', 'Łukasz', 'Søren', 'Chloé', 'Jürgen'];
/** the seven rows seeded with problems, and what the check must say of each */
const SEEDED: Record<number, { field: string; code: string; values: Partial<Row> }> = {
  100: {
    field: 'firstName',
    code: 'overflow',
    values: { firstName: 'Maximiliana-Josephina-Theodora Wolkenstein-Rodeneck' },
  },
  200: {
    field: 'lastName',
    code: 'overflow',
    values: { lastName: 'Oberhausen-Rheinhausen-Wattenscheid-Castrop' },
  },
  300: { field: 'lastName', code: 'missing_field', values: { lastName: '' } },
  400: { field: 'firstName', code: 'missing_glyph', values: { firstName: '李小龍' } },
  500: { field: 'lastName', code: 'missing_glyph', values: { lastName: 'Wang 王' } },
  600: {
    field: 'url',
    code: 'code_data',
    values: { url: `https://example.com/${'x'.repeat(3000)}` },
  },
  700: { field: 'badge', code: 'unknown_image', values: { badge: 'nope' } },
};
interface Row {
  firstName: string;
  lastName: string;
  url: string;
  badge: string;
}
const rowOf = (i: number): Row => ({
  firstName: `${FIRST[i % FIRST.length]} ${i}`,
  lastName: `Müller-${i}`,
  url: `https://example.com/r/${i}`,
  badge: 'logo',
});
const csvValue = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
function csv(seeded: boolean): string {
  const lines = ['firstName,lastName,url,badge'];
  for (let i = 1; i <= ROWS; i++) {
    const row = { ...rowOf(i), ...(seeded ? SEEDED[i]?.values : {}) };
    lines.push([row.firstName, row.lastName, row.url, row.badge].map(csvValue).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

const run = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { maxBuffer: 256 * 1024 * 1024 }).toString('utf8');

/** A record's own bytes in a PDF/VT file of this service: its pages, their contents, its DPart. */
function recordSegment(pdf: Buffer, record: number): Buffer {
  const text = pdf.toString('latin1');
  const dpart = new RegExp(
    `(\\d+) 0 obj\\n<</Type /DPart /Parent \\d+ 0 R /Start (\\d+) 0 R[^\\n]*?/CIP4_UniqueID \\(${record}\\)`,
  ).exec(text);
  if (!dpart) throw new Error(`no DPart of record ${record}`);
  const start = text.indexOf(`\n${dpart[2]} 0 obj\n`) + 1;
  const end = text.indexOf('endobj\n', dpart.index) + 'endobj\n'.length;
  return pdf.subarray(start, end);
}

/**
 * Variable data over real HTTP, PostgreSQL and Temporal: a label's image by name, a data
 * set of 10,000 rows checked against a badge's design (seven seeded problems found, no
 * other), a sale refused for them and accepted without them, and its PDF/VT print file
 * read by the tools a print shop has: qpdf, pdftotext, zbarimg, pdfimages.
 */
describe('variable data', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let b: Shop;
  let projectId: string;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vdp-test-'));

  beforeAll(async () => {
    // warm render processes from the start: a test kills them mid-render
    t = await startTestApp({ RENDER_WARM_UP: 'on' });
    call = client(t.url);
    a = await setUpShop(call, accessOf(t), 0);
    b = await setUpShop(call, accessOf(t), 0);
    const logo = await sharp({
      create: { width: 200, height: 200, channels: 3, background: '#c8102e' },
    })
      .png()
      .toBuffer();
    const stored = await fetch(`${t.url}/api/images?name=logo`, {
      method: 'POST',
      headers: { 'x-api-key': a.adminKey, 'content-type': 'image/png' },
      body: logo,
    });
    expect(stored.status, await stored.clone().text()).toBe(201);
    const photo = await sharp({
      create: {
        width: 1000,
        height: 625,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 30 },
      },
    })
      .jpeg()
      .toBuffer();
    const project = await call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${a.token}` },
      body: {
        name: 'Badges',
        sku: a.sku,
        supplier: 'supplier-a',
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                {
                  type: 'image',
                  src: `data:image/jpeg;base64,${photo.toString('base64')}`,
                  x: 0,
                  y: 0,
                  width: 80,
                  height: 50,
                },
                {
                  type: 'text',
                  text: 'Hello {{firstName}}',
                  x: 4,
                  y: 4,
                  fontSize: 14,
                  color: '#1a2b3c',
                  box: { width: 46, fit: 'shrink', minFontSize: 7 },
                },
                {
                  type: 'text',
                  text: '{{lastName}}',
                  x: 4,
                  y: 13,
                  fontSize: 10,
                  color: '#000000',
                  box: { width: 46, fit: 'error' },
                },
                {
                  type: 'code',
                  symbology: 'qrcode',
                  data: '{{url}}',
                  x: 52,
                  y: 20,
                  width: 26,
                  height: 26,
                },
                { type: 'image', src: '{{badge}}', x: 4, y: 30, width: 16, height: 16 },
              ],
            },
          ],
        },
      },
    });
    expect(project.status, JSON.stringify(project.body)).toBe(201);
    projectId = project.body.id;
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
  });

  const upload = (key: string, body: string, type = 'text/csv') =>
    call('POST', '/api/datasets', { key, raw: body, headers: { 'content-type': type } });

  let clean: string;
  let orderItemId: string;
  let printFile: Buffer;

  it('checks 10,000 rows and finds exactly the seven seeded problems; a sale with them is refused, without them accepted', async () => {
    const seeded = await upload(a.shopKey, csv(true));
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(201);
    expect(seeded.body).toMatchObject({
      rows: ROWS,
      fields: ['firstName', 'lastName', 'url', 'badge'],
    });
    expect(seeded.body.sha256).toBe(createHash('sha256').update(csv(true)).digest('hex'));
    const check = await call('POST', `/api/datasets/${seeded.body.datasetId}/check`, {
      key: a.shopKey,
      body: { projectId },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(200);
    expect(check.body.ok).toBe(false);
    expect(check.body.rows).toBe(ROWS);
    const found = check.body.problems.map((p: { row: number; field: string; code: string }) => [
      p.row,
      p.field,
      p.code,
    ]);
    expect(found).toEqual(Object.entries(SEEDED).map(([row, s]) => [Number(row), s.field, s.code]));
    // the details give sizes and code points, never a row's text
    expect(JSON.stringify(check.body)).not.toContain('Wolkenstein');

    await refused(t, call, 400, 'POST', '/webhook/notifyorder', {
      key: a.shopKey,
      body: {
        orderId: 'BADGES-SEEDED',
        items: [{ itemId: 'badges', projectId, quantity: 1, datasetId: seeded.body.datasetId }],
      },
    });

    const ok = await upload(a.shopKey, csv(false));
    expect(ok.status).toBe(201);
    clean = ok.body.datasetId;
    const cleanCheck = await call('POST', `/api/datasets/${clean}/check`, {
      key: a.adminKey,
      body: { projectId },
    });
    expect(cleanCheck.body).toMatchObject({ ok: true, rows: ROWS, problems: [] });
    const sale = await call('POST', '/webhook/notifyorder', {
      key: a.shopKey,
      body: {
        orderId: 'BADGES-1',
        items: [{ itemId: 'badges', projectId, quantity: 2, datasetId: clean }],
      },
    });
    expect(sale.status, JSON.stringify(sale.body)).toBe(200);
    const order = await until(
      'the badges rendered',
      async () => {
        const r = await call('GET', '/api/orders/BADGES-1', { key: a.adminKey });
        return ['ready', 'failed'].includes(r.body?.status) ? r.body : undefined;
      },
      180_000,
    );
    expect(order.status, JSON.stringify(order.items[0])).toBe('ready');
    const item = order.items[0];
    orderItemId = item.orderItemId;
    expect(item.variable).toMatchObject({ datasetId: clean, records: ROWS });
    expect(item.preflight.passed, JSON.stringify(item.preflight)).toBe(true);
    const { pathname, search } = new URL(item.printFiles[0].url);
    const file = await fetch(`${t.url}${pathname}${search}`, {
      headers: { 'x-api-key': a.adminKey },
    });
    expect(file.status).toBe(200);
    printFile = Buffer.from(await file.arrayBuffer());
    expect(createHash('sha256').update(printFile).digest('hex')).toBe(item.printFiles[0].sha256);
    // what a record costs beyond what they share (the photo, the font, the profile)
    expect(printFile.length).toBeLessThan(8_000_000 + ROWS * 4096);
  }, 300_000);

  it('is PDF/VT-1: a DPart per record, the names and codes of records 1, 5,000 and 10,000, the photo stored once', () => {
    const file = path.join(dir, 'badges.pdf');
    writeFileSync(file, printFile);
    const json = JSON.parse(run('qpdf', ['--json', '--json-key=qpdf', file]));
    const objects: Record<string, { value?: Record<string, unknown> }> = json.qpdf[1];
    const catalog = Object.values(objects).find((o) => o.value?.['/Type'] === '/Catalog')!.value!;
    const root = objects[`obj:${catalog['/DPartRoot']}`]!.value!;
    expect(root['/Type']).toBe('/DPartRoot');
    const node = objects[`obj:${root['/DPartRootNode']}`]!.value!;
    const leaves = (node['/DParts'] as string[][]).flat();
    expect(leaves).toHaveLength(ROWS);
    const first = objects[`obj:${leaves[0]}`]!.value! as Record<
      string,
      Record<string, Record<string, unknown>>
    >;
    expect(first['/DPM']!['/CIP4_Root']!['/CIP4_Recipient']).toMatchObject({
      '/RecordNumber': 1,
      '/firstName': `u:${rowOf(1).firstName}`,
    });
    const xmp = printFile.toString('latin1');
    expect(xmp).toContain('<pdfvtid:GTS_PDFVTVersion>PDF/VT-1</pdfvtid:GTS_PDFVTVersion>');
    expect(xmp).toContain('<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>');

    for (const record of [1, 5000, ROWS]) {
      const text = run('pdftotext', ['-f', String(record), '-l', String(record), file, '-']);
      expect(text).toContain(`Hello ${rowOf(record).firstName}`);
      expect(text).toContain(rowOf(record).lastName);
      const prefix = path.join(dir, `r${record}`);
      run('pdftoppm', [
        '-f',
        String(record),
        '-l',
        String(record),
        '-r',
        '200',
        '-png',
        file,
        prefix,
      ]);
      const png = readdirSync(dir).find((f) => f.startsWith(`r${record}-`))!;
      const codes = run('zbarimg', ['-q', '--raw', path.join(dir, png)]);
      expect(codes.split('\n')).toContain(rowOf(record).url);
    }
    // every page draws the shared photo; it is one object in the file
    const images = run('pdfimages', ['-f', '1', '-l', '50', '-list', file])
      .split('\n')
      .slice(2)
      .filter((l) => l.trim())
      .map((l) => l.trim().split(/\s+/));
    const photos = images.filter((cols) => cols[3] === '1000' || Number(cols[3]) > 500);
    expect(photos.length).toBe(50);
    expect(new Set(photos.map((cols) => cols[10])).size).toBe(1);
  }, 120_000);

  it('draws record 4,242 alone with the bytes of its part of the file', async () => {
    const r = await fetch(`${t.url}/api/orderitems/${orderItemId}/records/4242/pdf`, {
      headers: { 'x-api-key': a.fulfillmentKey },
    });
    expect(r.status).toBe(200);
    const alone = Buffer.from(await r.arrayBuffer());
    const own = recordSegment(alone, 4242);
    expect(own.equals(recordSegment(printFile, 4242))).toBe(true);
    expect(r.headers.get('x-record-sha256')).toBe(createHash('sha256').update(own).digest('hex'));
    const text = run('pdftotext', [writeTmp(alone), '-']);
    expect(text).toContain(`Hello ${rowOf(4242).firstName}`);
    const png = await fetch(`${t.url}/api/orderitems/${orderItemId}/records/4242/preview`, {
      headers: { 'x-api-key': a.adminKey },
    });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await png.arrayBuffer())).metadata();
    expect(meta.width).toBeGreaterThan(100);
    const beyond = await call('GET', `/api/orderitems/${orderItemId}/records/10001/pdf`, {
      key: a.adminKey,
    });
    expect(beyond.status).toBe(404);
  }, 120_000);

  it('reprints records 17 and 4,242 as a file of just those two, each the bytes of its part of the file', async () => {
    const printed = await call('POST', '/v1/production/scans', {
      key: a.fulfillmentKey,
      body: { code: orderItemId, stage: 'printed' },
    });
    expect(printed.status, JSON.stringify(printed.body)).toBe(200);
    // records only of a variable item, and only those it has
    await refused(t, call, 400, 'POST', `/v1/orderitems/${orderItemId}/reprints`, {
      key: a.fulfillmentKey,
      body: { reason: 'damaged', records: [17, ROWS + 1] },
    });
    const reprint = await call('POST', `/v1/orderitems/${orderItemId}/reprints`, {
      key: a.fulfillmentKey,
      body: { reason: 'damaged', note: 'two badges torn', records: [4242, 17, 17] },
    });
    expect(reprint.status, JSON.stringify(reprint.body)).toBe(202);
    const item = await until(
      'the reprint of two records',
      async () => {
        const r = await call('GET', '/api/orders/BADGES-1', { key: a.adminKey });
        const i = r.body?.items?.[0];
        return i?.reprints?.length ? i : undefined;
      },
      180_000,
    );
    expect(item.stage).toBe('ready');
    expect(item.reprints[0]).toMatchObject({
      reprintId: reprint.body.reprintId,
      records: [17, 4242],
      matches: true,
      pages: 2,
    });
    const { pathname, search } = new URL(item.reprints[0].url);
    const r = await fetch(`${t.url}${pathname}${search}`, {
      headers: { 'x-api-key': a.adminKey },
    });
    expect(r.status).toBe(200);
    const two = Buffer.from(await r.arrayBuffer());
    const file = writeTmp(two);
    const json = JSON.parse(run('qpdf', ['--json', '--json-key=qpdf', file]));
    const objects: Record<string, { value?: Record<string, unknown> }> = json.qpdf[1];
    const catalog = Object.values(objects).find((o) => o.value?.['/Type'] === '/Catalog')!.value!;
    const root = objects[`obj:${catalog['/DPartRoot']}`]!.value!;
    const node = objects[`obj:${root['/DPartRootNode']}`]!.value!;
    expect((node['/DParts'] as string[][]).flat()).toHaveLength(2);
    for (const record of [17, 4242])
      expect(recordSegment(two, record).equals(recordSegment(printFile, record))).toBe(true);
    const text = run('pdftotext', [file, '-']);
    expect(text).toContain(`Hello ${rowOf(17).firstName}`);
    expect(text).toContain(`Hello ${rowOf(4242).firstName}`);
    expect(text).not.toContain(`Hello ${rowOf(18).firstName}`);
  }, 300_000);

  it("shows the ops page a variable item's records, data set and a record browser (first, last, any number)", async () => {
    const cookie = await opsLogin(t.url, a.adminKey);
    const page = async (query: string) => {
      const r = await fetch(`${t.url}/ops/labels/${a.labelId}/orders/BADGES-1${query}`, {
        headers: { cookie },
      });
      expect(r.status).toBe(200);
      return r.text();
    };
    const first = await page('');
    expect(first).toContain('10,000 records');
    expect(first).toContain(clean);
    expect(first).toContain('every row passed its check at the sale');
    expect(first).toContain('records 17, 4242');
    // one record's page drawn, not 10,000
    expect(first.match(/\/preview\//g) ?? []).toHaveLength(1);
    const src = (html: string) => /src="([^"]*\/records\/\d+)"/.exec(html)?.[1];
    expect(src(first)).toMatch(/\/records\/1$/);
    expect(src(await page(`?record=${ROWS}`))).toMatch(new RegExp(`/records/${ROWS}$`));
    const any = src(await page('?record=4242'))!;
    expect(any).toMatch(/\/records\/4242$/);
    const png = await fetch(`${t.url}${any}`, { headers: { cookie } });
    expect(png.status).toBe(200);
    expect((await sharp(Buffer.from(await png.arrayBuffer())).metadata()).format).toBe('png');
    // another label's admin sees none of it
    const other = await opsLogin(t.url, b.adminKey);
    const foreign = await fetch(`${t.url}${any}`, { headers: { cookie: other } });
    expect(foreign.status).toBe(404);
  }, 120_000);

  it('survives kill -9 of its render process mid-render: ready with one file, every record once', async () => {
    const sale = await call('POST', '/webhook/notifyorder', {
      key: a.shopKey,
      body: {
        orderId: 'BADGES-KILL',
        items: [{ itemId: 'badges', projectId, quantity: 1, datasetId: clean }],
      },
    });
    expect(sale.status, JSON.stringify(sale.body)).toBe(200);
    // in the middle of the render: its scratch file is being written (by a render process
    // of now: an idle one ends after a minute, and the sale starts one again)
    let killed = new Set<number>();
    const scratch = () =>
      readdirSync(os.tmpdir()).filter((e) =>
        [...killed].some((pid) => e.startsWith(`vdp-${pid}-`)),
      );
    await until(
      'the render to be writing',
      async () => {
        killed = new Set(renderProcesses());
        return scratch().length > 0 ? true : undefined;
      },
      60_000,
      20,
    );
    for (const pid of killed) process.kill(pid, 'SIGKILL');
    const order = await until(
      'the badges rendered again',
      async () => {
        const r = await call('GET', '/api/orders/BADGES-KILL', { key: a.adminKey });
        return ['ready', 'failed'].includes(r.body?.status) ? r.body : undefined;
      },
      180_000,
    );
    expect(order.status, JSON.stringify(order.items[0])).toBe('ready');
    expect(renderProcesses().some((pid) => !killed.has(pid))).toBe(true);
    const item = order.items[0];
    expect(item.printFiles).toHaveLength(1);
    const generated = await t.app.db.pool.query(
      "SELECT count(*)::int AS n FROM es_events WHERE type = 'PrintFileGenerated' AND data->>'orderItemId' = $1",
      [item.orderItemId],
    );
    expect(generated.rows[0].n).toBe(1);
    const { pathname, search } = new URL(item.printFiles[0].url);
    const r = await fetch(`${t.url}${pathname}${search}`, { headers: { 'x-api-key': a.adminKey } });
    const pdf = Buffer.from(await r.arrayBuffer());
    const numbers = [...pdf.toString('latin1').matchAll(/\/CIP4_UniqueID \((\d+)\)/g)].map((m) =>
      Number(m[1]),
    );
    expect(numbers).toHaveLength(ROWS);
    expect(new Set(numbers).size).toBe(ROWS);
    // the killed process's scratch folder is gone (the next render cleared it)
    expect(scratch()).toEqual([]);
  }, 300_000);

  it('lays 95 records out cut-and-stack 10-up: after the cut, each stack holds its records in order; the job sheet and the XJDF ticket say which', async () => {
    const small = [
      'firstName,lastName,url,badge',
      ...Array.from({ length: 95 }, (_, i) => {
        const r = rowOf(i + 1);
        return [r.firstName, r.lastName, r.url, r.badge].join(',');
      }),
    ].join('\n');
    const ds = await upload(a.shopKey, small);
    expect(ds.status).toBe(201);
    const sale = await call('POST', '/webhook/notifyorder', {
      key: a.shopKey,
      body: {
        orderId: 'BADGES-STACK',
        items: [{ itemId: 'badges', projectId, quantity: 1, datasetId: ds.body.datasetId }],
      },
    });
    expect(sale.status, JSON.stringify(sale.body)).toBe(200);
    const order = await until('the small run rendered', async () => {
      const r = await call('GET', '/api/orders/BADGES-STACK', { key: a.adminKey });
      return r.body?.status === 'ready' ? r.body : undefined;
    });
    const item = order.items[0].orderItemId;
    // a sheet of 2 x 5 badges (86 x 56 mm with their bleed), the slug below
    const media = { widthMm: 190, heightMm: 310 };
    await refused(t, call, 400, 'POST', '/v1/production/batches', {
      key: a.fulfillmentKey,
      body: { items: [item], media, mode: 'gang', imposition: 'cut-and-stack' },
    });
    const batch = await call('POST', '/v1/production/batches', {
      key: a.fulfillmentKey,
      body: { items: [item], media, mode: 'step-repeat', imposition: 'cut-and-stack', copies: 1 },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const imposed = await until(
      'the cut-and-stack run imposed',
      async () => {
        const r = await call('GET', `/v1/production/batches/${batch.body.batchId}`, {
          key: a.fulfillmentKey,
        });
        return ['imposed', 'failed'].includes(r.body?.status) ? r.body : undefined;
      },
      120_000,
    );
    expect(imposed.status, imposed.failure).toBe('imposed');
    expect(imposed.imposition).toBe('cut-and-stack');
    const sheets: { n: number; placements: { xMm: number; yMm: number; page: number }[] }[] =
      imposed.sheets;
    expect(sheets).toHaveLength(10);
    // the pile cut: the pieces at one position, sheet 1 on top, are one stack
    const positions = sheets[0]!.placements.map((p) => `${p.xMm},${p.yMm}`);
    expect(positions).toHaveLength(10);
    const stacks = positions.map((at) =>
      sheets.flatMap((s) =>
        s.placements.filter((p) => `${p.xMm},${p.yMm}` === at).map((p) => p.page),
      ),
    );
    expect(stacks.flat().sort((x, y) => x - y)).toEqual(
      Array.from({ length: 95 }, (_, i) => i + 1),
    );
    for (const [k, stack] of stacks.entries()) {
      const first = k * 10 + 1;
      expect(stack).toEqual(Array.from({ length: Math.min(10, 95 - k * 10) }, (_, i) => first + i));
    }
    const ticket = await fetch(`${t.url}/v1/production/batches/${batch.body.batchId}/ticket.xjdf`, {
      headers: { 'x-api-key': a.fulfillmentKey },
    });
    const xml = await ticket.text();
    for (const version of XJDF_SCHEMAS) expect(xjdfErrors(xml, version)).toEqual([]);
    expect(xml).toContain('IDValue="cut-and-stack"');
    expect(xml).toContain('StackAmount="10"');
    expect(xml).toMatch(/ep:Stack="10" ep:Record="95"/);
    const sheet = await fetch(`${t.url}/v1/production/batches/${batch.body.batchId}/job-sheet`, {
      headers: { 'x-api-key': a.fulfillmentKey },
    });
    const text = run('pdftotext', [writeTmp(Buffer.from(await sheet.arrayBuffer())), '-']);
    expect(text).toContain('Stack 1 ');
    expect(text).toContain('records 1-10');
    expect(text).toContain('records 91-95');
  }, 300_000);

  it("keeps another label's keys out: 404 on the data set, its check and the records", async () => {
    await refused(t, call, 404, 'GET', `/api/datasets/${clean}`, { key: b.adminKey });
    await refused(t, call, 404, 'POST', `/api/datasets/${clean}/check`, {
      key: b.shopKey,
      body: { projectId },
    });
    await refused(t, call, 404, 'GET', `/api/orderitems/${orderItemId}/records/1/pdf`, {
      key: b.fulfillmentKey,
    });
    await refused(t, call, 404, 'GET', `/api/orderitems/${orderItemId}/records/1/preview`, {
      key: b.adminKey,
    });
    await refused(t, call, 404, 'POST', `/v1/orderitems/${orderItemId}/reprints`, {
      key: b.fulfillmentKey,
      body: { reason: 'damaged', records: [1] },
    });
  });

  it('erases a data set: its key and rows gone, its records no longer drawn, the print file kept; a label image unnamed', async () => {
    const erased = await call('DELETE', `/api/datasets/${clean}`, { key: a.adminKey });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(erased.body).toEqual({ datasetId: clean, status: 'erased' });
    const keys = await t.app.db.pool.query('SELECT 1 FROM encryption_keys WHERE owner_id = $1', [
      clean,
    ]);
    expect(keys.rowCount).toBe(0);
    const gone = await call('GET', `/api/datasets/${clean}`, { key: a.adminKey });
    expect([gone.status, gone.body.code]).toEqual([404, 'dataset_erased']);
    const record = await call('GET', `/api/orderitems/${orderItemId}/records/1/pdf`, {
      key: a.adminKey,
    });
    expect([record.status, record.body.code]).toEqual([404, 'dataset_erased']);
    // the print file made from it stays, byte for byte
    const order = await call('GET', '/api/orders/BADGES-1', { key: a.adminKey });
    const { pathname, search } = new URL(order.body.items[0].printFiles[0].url);
    const kept = await fetch(`${t.url}${pathname}${search}`, {
      headers: { 'x-api-key': a.adminKey },
    });
    expect(Buffer.from(await kept.arrayBuffer()).equals(printFile)).toBe(true);
    // no sealed rows left in the store
    expect(
      readdirSync(path.join(t.config.dataDir, 'datasets', a.labelId)).filter((f) =>
        f.startsWith(clean),
      ),
    ).toEqual([]);

    const unnamed = await call('DELETE', '/api/images/logo', { key: a.adminKey });
    expect(unnamed.body).toEqual({ name: 'logo', status: 'removed' });
    expect((await call('GET', '/api/images', { key: a.adminKey })).body.images).toEqual([]);
    await refused(t, call, 404, 'DELETE', '/api/images/logo', { key: a.adminKey });
  }, 120_000);

  it('refuses what is not a data set, recording nothing', async () => {
    const bad = [
      ['text/csv', 'name\nAnna\u0000\n'],
      ['text/csv', 'a,b\n1,2,3\n'],
      ['text/csv', 'a,a\n1,2\n'],
      ['text/csv', 'a b\n1\n'],
      ['text/csv', 'name\n"unclosed\n'],
      ['application/x-ndjson', '{"a":1}\n[1,2]\n'],
      ['application/x-ndjson', '{"a":{"b":1}}\n'],
      ['text/csv', 'name\n'],
    ] as const;
    for (const [type, body] of bad)
      await refused(t, call, 400, 'POST', '/api/datasets', {
        key: a.adminKey,
        raw: body,
        headers: { 'content-type': type },
      });
    const latin1 = await fetch(`${t.url}/api/datasets`, {
      method: 'POST',
      headers: { 'x-api-key': a.adminKey, 'content-type': 'text/csv' },
      body: Buffer.from('name\nM\xfcller\n', 'latin1'),
    });
    expect(latin1.status).toBe(400);
  });

  function writeTmp(bytes: Buffer): string {
    const f = path.join(dir, `${createHash('sha256').update(bytes).digest('hex')}.pdf`);
    writeFileSync(f, bytes);
    return f;
  }
});

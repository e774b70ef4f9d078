import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { anotherLabelServed, expectOthersServed, watchLoop } from '../helpers/loop-watch.ts';
import { accessOf, type Shop, setUpShop } from '../helpers/orders.ts';

/** A row of about 500 bytes: 100,000 of them are the largest data set a label may send. */
const row = (i: number) =>
  [
    `Zoë-${i}`,
    `Müller-Lüdenscheidt-${i}`,
    `https://example.com/r/${i}`,
    `${'Straße '.repeat(60)}${i}`.slice(0, 380),
  ].join(',');

/**
 * The largest data set one label may send (100,000 rows, about 50 MB), taken in and
 * checked while another label is served; 50 uploads racing. The parse and the check
 * run in image processes: the service's loop and /readyz must not notice.
 */
describe('variable data under load', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let b: Shop;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    a = await setUpShop(call, accessOf(t), 0);
    b = await setUpShop(call, accessOf(t), 1);
    const p = await call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${a.token}` },
      body: {
        name: 'Cards',
        sku: a.sku,
        supplier: 'supplier-a',
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                {
                  type: 'text',
                  text: 'Hello {{firstName}}',
                  x: 2,
                  y: 2,
                  fontSize: 12,
                  color: '#000000',
                  box: { width: 50, fit: 'shrink', minFontSize: 6 },
                },
                { type: 'text', text: '{{lastName}}', x: 2, y: 10, fontSize: 8, color: '#000000' },
                {
                  type: 'code',
                  symbology: 'qrcode',
                  data: '{{url}}',
                  x: 55,
                  y: 20,
                  width: 24,
                  height: 24,
                },
              ],
            },
          ],
        },
      },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    projectId = p.body.id;
  }, 180_000);
  afterAll(async () => t?.stop());

  it('takes in and checks 100,000 rows (about 50 MB) while another label is served', async () => {
    const lines = ['firstName,lastName,url,note'];
    for (let i = 1; i <= 100_000; i++) lines.push(row(i));
    const body = lines.join('\n');
    expect(Buffer.byteLength(body)).toBeGreaterThan(45 * 1024 * 1024);
    expect(Buffer.byteLength(body)).toBeLessThan(50 * 1024 * 1024);
    const watch = watchLoop(t.url);
    const elsewhere = anotherLabelServed(call, b);
    const upload = await call('POST', '/api/datasets', {
      key: a.adminKey,
      raw: body,
      headers: { 'content-type': 'text/csv' },
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    expect(upload.body.rows).toBe(100_000);
    const began = performance.now();
    const check = await call('POST', `/api/datasets/${upload.body.datasetId}/check`, {
      key: a.adminKey,
      body: { projectId },
    });
    const checkMs = performance.now() - began;
    expect(check.status, JSON.stringify(check.body).slice(0, 500)).toBe(200);
    expect(check.body).toMatchObject({ ok: true, rows: 100_000, problems: [] });
    // about 2 s on this machine (figures: npm run bench:vdp); a check that takes a
    // minute is a defect, a slow moment of the machine is not
    expect(checkMs).toBeLessThan(60_000);
    console.log(`100,000 rows: checked in ${Math.round(checkMs)} ms`);
    expectOthersServed(await watch.stop(), await elsewhere);
  }, 300_000);

  it('answers 50 racing uploads of one label with 201 or 429 (Retry-After), recording only what it took', async () => {
    const keyCount = async () =>
      (await t.app.db.pool.query('SELECT count(*)::int AS n FROM encryption_keys')).rows[0]
        .n as number;
    const keysBefore = await keyCount();
    const csv = [
      'firstName,lastName,url',
      ...Array.from({ length: 2000 }, (_, i) => `A${i},B${i},https://e.com/${i}`),
    ].join('\n');
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${t.url}/api/datasets`, {
          method: 'POST',
          headers: { 'x-api-key': a.shopKey, 'content-type': 'text/csv' },
          body: csv,
        }).then(async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          body: (await r.json()) as { datasetId?: string; code?: string },
        })),
      ),
    );
    const taken = answers.filter((x) => x.status === 201);
    const refused = answers.filter((x) => x.status !== 201);
    expect(taken.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status).toBe(429);
      // past the label's upload share at the door, or past the image processes' queue
      expect(['over_share', 'too_many_jobs']).toContain(r.body.code);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    // one DatasetUploaded and one key per data set taken: a refused one keeps neither
    const recorded = await t.app.db.pool.query(
      "SELECT data->>'datasetId' AS id FROM es_events WHERE type = 'DatasetUploaded' AND stream_id LIKE $1",
      [`Dataset-${a.labelId}-%`],
    );
    const ids = taken.map((x) => x.body.datasetId!);
    expect(
      recorded.rows
        .map((r: { id: string }) => r.id)
        .filter((id: string) => ids.includes(id))
        .sort(),
    ).toEqual([...ids].sort());
    // a key a data set taken, none for a refused one
    expect((await keyCount()) - keysBefore).toBe(ids.length);
  }, 120_000);
});

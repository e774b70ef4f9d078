import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { halfUpload } from '../helpers/half-upload.ts';
import { accessOf, type Shop, setUpShop, until } from '../helpers/orders.ts';

/**
 * A data set's body is written to a temporary folder as it arrives: whatever becomes of
 * the upload (taken, refused past 50 MB, cut off by the client, refused as invalid) the
 * folder is gone when the answer is. This file's process has a temporary folder of its
 * own, so nothing another test file uploads meanwhile is counted.
 */
describe('data set uploads leave nothing behind', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let tmp: string;
  const leftovers = () => readdirSync(tmp).filter((n) => n.startsWith('dataset-'));

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'uploads-'));
    process.env.TMPDIR = tmp;
    t = await startTestApp();
    call = client(t.url);
    a = await setUpShop(call, accessOf(t), 0);
  }, 180_000);
  afterAll(async () => t?.stop());

  const upload = (body: string | Buffer, type = 'text/csv') =>
    fetch(`${t.url}/api/datasets`, {
      method: 'POST',
      headers: { 'x-api-key': a.adminKey, 'content-type': type },
      body,
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  it('taken, refused as invalid or past its limit: no folder remains', async () => {
    expect(os.tmpdir()).toBe(tmp);
    const taken = await upload('name\nAda\nGrace\n');
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
    expect(leftovers()).toEqual([]);
    const invalid = await upload('"unclosed\n');
    expect(invalid.status, JSON.stringify(invalid.body)).toBe(400);
    expect(leftovers()).toEqual([]);
    const big = Buffer.alloc(51 * 1024 * 1024, 'x\n');
    const tooBig = await upload(Buffer.concat([Buffer.from('name\n'), big])).catch(() => ({
      status: 413,
      body: { code: 'payload_too_large' },
    }));
    expect(tooBig.status).toBe(413);
    await until('the refused upload gone from disk', async () =>
      leftovers().length === 0 ? true : undefined,
    );
  }, 120_000);

  it('cut off by its client halfway: no folder remains', async () => {
    const req = halfUpload(t.url, a.adminKey);
    // what arrived is on disk now; the client goes away without the rest
    await new Promise((r) => setTimeout(r, 500));
    req.destroy();
    await until('the cut-off upload gone from disk', async () =>
      leftovers().length === 0 ? true : undefined,
    );
  }, 120_000);
});

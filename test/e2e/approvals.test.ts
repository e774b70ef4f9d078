import { createHash } from 'node:crypto';
import { type Browser, chromium } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchApprovals } from '../../src/app/approvals.ts';
import { proofToken } from '../../src/app/proof-links.ts';
import { orderStream } from '../../src/domain/order/events.ts';
import { MESSAGE_SCHEMAS } from '../../src/webhooks/message-schemas.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { refused, settled } from '../helpers/fixtures.ts';
import { accessOf, type Shop, setUpShop, textDesign, until } from '../helpers/orders.ts';
import { parseMessage, startReceiver } from '../helpers/webhook-receiver.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** a form post as a browser sends it */
const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  raw: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
});

/**
 * Proofs before the press over real HTTP, PostgreSQL, Temporal and a real browser: a
 * label's policy, the proof drawn from the print file, the approvers' links opened in
 * Chromium (no JavaScript needed), decisions through the API, the final approver last,
 * production refused until approval, and every refusal recording nothing.
 */
describe('proof approvals', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let b: Shop;
  let browser: Browser;

  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** what the shop's webhook endpoint received of an order, by type */
  const heard = (orderId: string, type: string) =>
    receiver.requests
      .map(parseMessage)
      .filter((m) => m.type === type && m.data.orderId === orderId);

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'on', WEBHOOK_ALLOW_HTTP: 'on' });
    call = client(t.url);
    const access = accessOf(t);
    a = await setUpShop(call, access, 1);
    b = await setUpShop(call, access, 1);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await receiver?.close();
  });

  const policy = {
    mode: 'skus',
    approvers: [
      { role: 'buyer', name: 'Anna', email: 'anna@example.com' },
      { role: 'shop', name: 'Prepress' },
    ],
    finalApprover: 'shop',
    remindAfterHours: 24,
    expireAfterHours: 168,
  };

  const notify = async (orderId: string, approval?: { required: boolean }) => {
    const r = await call('POST', '/webhook/notifyorder', {
      key: a.shopKey,
      body: {
        orderId,
        items: [{ itemId: 'pens', projectId: a.projects[0], quantity: 500 }],
        ...(approval ? { approval } : {}),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  /**
   * A refusal checked once the shop's webhook deliveries are done: a delivery records its
   * attempt as an event, which the refusal's "nothing recorded" check would see.
   */
  const refusedHere = async (
    ...args: Parameters<typeof refused> extends [unknown, unknown, ...infer R] ? R : never
  ) => {
    for (;;) {
      await settled(t);
      const q = await t.app.db.pool.query('SELECT count(*)::int AS n FROM webhook_queue');
      if (q.rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    return refused(t, call, ...args);
  };

  /** a press run of one item, taken (202) and imposed */
  const pressRun = async (orderItemId: string) => {
    const batch = await call('POST', '/v1/production/batches', {
      key: a.fulfillmentKey,
      body: { items: [orderItemId], media: { preset: 'SRA3' }, mode: 'gang' },
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    const imposed = await until('the press run imposed', async () => {
      const r = await call('GET', `/v1/production/batches/${batch.body.batchId}`, {
        key: a.fulfillmentKey,
      });
      return ['imposed', 'failed'].includes(r.body?.status) ? r.body : undefined;
    });
    expect(imposed.status, imposed.failure).toBe('imposed');
    return imposed;
  };

  /** the order once its item's proof waits for the approvers, and its mockup is drawn */
  const proofed = async (orderId: string) => {
    // the first is the service's first render and proof: on a loaded machine (a hunt's
    // busy core, two other files) it took past a minute once
    const order = await until(
      `the proof of ${orderId}`,
      async () => {
        const r = await call('GET', `/api/orders/${orderId}`, { key: a.adminKey });
        return r.body?.items?.[0]?.approval?.status === 'awaiting_approval' ? r.body : undefined;
      },
      180_000,
    );
    await mockupsOf(order.items[0].orderItemId, order.items[0].printFiles.at(-1).sha256);
    return order;
  };
  /** an item's mockups of one print file, once drawn (the label has a template for its SKU) */
  const mockupsOf = (orderItemId: string, printFileSha256: string) =>
    until(`the mockup of ${orderItemId}`, async () => {
      const r = await call('GET', `/api/orderitem/${orderItemId}/mockups`, { key: a.adminKey });
      const of = (Array.isArray(r.body) ? r.body : []).filter(
        (m: { printFileSha256: string }) => m.printFileSha256 === printFileSha256,
      );
      return of.length > 0 ? of : undefined;
    });
  /** an address the service gave, on the test's server (its public base URL is not served) */
  const here = (url: string) => {
    const u = new URL(url);
    return `${t.url}${u.pathname}${u.search}`;
  };
  const itemOf = async (orderId: string) =>
    (await call('GET', `/api/orders/${orderId}`, { key: a.adminKey })).body.items[0];
  const eventsOf = async (orderId: string, type: string) =>
    (await t.app.store.readStream(orderStream(a.labelId, orderId))).filter((e) => e.type === type);

  it('sets the policy, and refuses one that cannot work, recording nothing', async () => {
    const good = { ...policy, skus: [a.sku] };
    for (const [code, body] of [
      [
        'final_approver_unknown',
        { ...good, finalApprover: 'buyer', approvers: [{ role: 'shop' }] },
      ],
      ['approvers_missing', { ...good, approvers: [] }],
      ['skus_missing', policy],
      ['expiry_before_reminder', { ...good, expireAfterHours: 2 }],
      ['validation', { ...good, mode: 'sometimes' }],
      ['invalid_character', { ...good, approvers: [{ role: 'buyer\u0000' }] }],
    ] as const) {
      const problem = await refusedHere(400, 'PUT', '/api/approval-policy', {
        key: a.adminKey,
        body,
      });
      if (code !== 'validation') expect(problem.code, JSON.stringify(problem)).toBe(code);
    }
    const integrations = await call('GET', '/api/shop-integration', { key: a.adminKey });
    const hook = await call('PUT', `/api/shop-integration/${integrations.body[0].id}/webhook`, {
      key: a.adminKey,
      body: { url: receiver.url() },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(200);
    // a mockup template for the pens: the proof page shows the item on it
    const photo = await sharp({
      create: { width: 400, height: 300, channels: 3, background: '#d8d8d8' },
    })
      .png()
      .toBuffer();
    const template = await call('PUT', '/api/mockup-templates/pens', {
      key: a.adminKey,
      body: {
        match: { sku: a.sku },
        photo: `data:image/png;base64,${photo.toString('base64')}`,
        areas: [
          {
            printArea: 'FRONT',
            corners: [
              [100, 75],
              [300, 75],
              [300, 225],
              [100, 225],
            ],
            blend: 'normal',
          },
        ],
      },
    });
    expect(template.status, JSON.stringify(template.body)).toBe(200);
    const set = await call('PUT', '/api/approval-policy', {
      key: a.adminKey,
      body: good,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ mode: 'skus', finalApprover: 'shop', skus: [a.sku] });
    expect((await call('GET', '/api/approval-policy', { key: a.adminKey })).body).toEqual(set.body);
    expect((await call('GET', '/api/approval-policy', { key: b.adminKey })).body.mode).toBe('none');
  });

  it('draws the proof from the print file, refuses production before approval, and takes a rejection with a pin in Chromium', async () => {
    const orderId = 'PROOF-REJECT';
    await notify(orderId);
    const order = await proofed(orderId);
    const item = order.items[0];
    const file = item.printFiles.at(-1);
    expect(item.approval).toMatchObject({
      version: 1,
      approvers: [{ role: 'buyer' }, { role: 'shop' }],
    });
    const proof = item.approval.proofs[0];
    expect(proof).toMatchObject({ version: 1, printFileSha256: file.sha256 });
    // the proof pages are served to the admin, as stored
    const page1 = await fetch(here(proof.pages[0].url), { headers: { 'x-api-key': a.adminKey } });
    expect(page1.status).toBe(200);
    const png = Buffer.from(await page1.arrayBuffer());
    expect(createHash('sha256').update(png).digest('hex')).toBe(proof.pages[0].sha256);
    expect((await sharp(png).metadata()).format).toBe('png');
    // nothing goes to production before approval
    await refusedHere(409, 'POST', '/v1/production/batches', {
      key: a.fulfillmentKey,
      body: { items: [item.orderItemId], media: { preset: 'SRA3' }, mode: 'gang' },
    });
    await refusedHere(409, 'POST', '/v1/production/scans', {
      key: a.fulfillmentKey,
      body: { code: item.barcode?.value ?? item.orderItemId, stage: 'printed', station: 'Press 1' },
    });
    await refusedHere(409, 'POST', `/v1/orders/${orderId}/shipments`, {
      key: a.fulfillmentKey,
      body: { carrier: 'DHL', trackingNumber: 'T1' },
    });
    expect(order.late ?? false).toBe(false);

    // the mockup of this print file joins the page once drawn
    await until('the mockup on the proof page', async () =>
      (await (await fetch(here(item.approval.links[0].url))).text()).includes('data-mockup')
        ? true
        : undefined,
    );
    // the buyer's link, opened in a browser with JavaScript off
    // the buyer's link as the shop heard it (order.proof.ready), the one the order shows
    const told = await until(
      'order.proof.ready delivered',
      async () => heard(orderId, 'order.proof.ready')[0],
    );
    const buyer = (told.data as unknown as { approvers: { role: string; url: string }[] })
      .approvers[0]!;
    expect(buyer.role).toBe('buyer');
    const link = here(buyer.url);
    expect(link).toBe(here(item.approval.links[0].url));
    // the link approves by itself: its token may reach no log (checked at the app's stop,
    // with every request to it logged meanwhile)
    t.secrets.add(new URL(link).pathname.split('/').at(-1)!);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(link);
    expect(await page.locator('h1').textContent()).toContain('Proof version 1');
    expect(await page.locator('[data-sha256]').getAttribute('data-sha256')).toBe(file.sha256);
    const images = page.locator('img[data-page]');
    expect(await images.count()).toBe(proof.pages.length);
    const mockup = page.locator('img[data-mockup]');
    const drawn = await mockupsOf(item.orderItemId, file.sha256);
    expect(await mockup.count()).toBe(drawn.length);
    await until('the mockup image to load', async () =>
      (await mockup.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)) >
      0
        ? true
        : undefined,
    );
    await until('the proof image to load', async () =>
      (await images
        .first()
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)) > 0
        ? true
        : undefined,
    );
    await page.fill('#reject textarea[name=comment]', 'the name is misspelt');
    await page.fill('#reject textarea[name=pins]', '1; 20; 12; Jonh → John');
    await page.click('#reject button');
    await page.waitForURL(/done=reject/);
    expect(await page.locator('[data-status]').getAttribute('data-status')).toBe('rejected');
    await context.close();

    const rejected = await eventsOf(orderId, 'ProofRejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.data).toMatchObject({
      by: { role: 'buyer', name: 'Anna', via: 'link' },
      version: 1,
      printFileSha256: file.sha256,
      comment: 'the name is misspelt',
      pins: [{ page: 1, xMm: 20, yMm: 12, text: 'Jonh → John' }],
    });
    const after = await itemOf(orderId);
    expect(after.approval.status).toBe('rejected');
    // a rejected proof is not approved later by the shop
    await refusedHere(409, 'POST', `/api/orderitems/${item.orderItemId}/approval`, {
      key: a.shopKey,
      body: { decision: 'approve' },
    });

    // the buyer edits the project in the editor, and the item takes it: proof version 2
    const editor = { authorization: `Bearer ${a.token}` };
    const edit = (text: string) =>
      call('PUT', `/editor/projects/${a.projects[0]}`, {
        headers: editor,
        body: { name: 'P0', sku: a.sku, supplier: 'supplier-a', design: textDesign(text) },
      });
    expect((await edit('John')).status).toBe(200);
    const revisions = `/api/orderitems/${item.orderItemId}/revisions`;
    for (const key of [b.shopKey, b.adminKey])
      await refusedHere(404, 'POST', revisions, { key, body: { projectId: a.projects[0] } });
    // another label's project: as if there were none
    await refusedHere(404, 'POST', revisions, {
      key: a.shopKey,
      body: { projectId: b.projects[0] },
    });
    const revised = await call('POST', revisions, {
      headers: editor,
      body: { projectId: a.projects[0] },
    });
    expect(revised.status, JSON.stringify(revised.body)).toBe(202);
    expect(revised.body).toMatchObject({ version: 2, approval: 'awaiting_proof' });
    const v2 = await until('proof version 2', async () => {
      const i = await itemOf(orderId);
      return i.approval.status === 'awaiting_approval' && i.approval.version === 2 ? i : undefined;
    });
    const file2 = v2.printFiles.at(-1);
    expect(file2.sha256).not.toBe(file.sha256);
    expect(v2.approval.proofs[1]).toMatchObject({ version: 2, printFileSha256: file2.sha256 });
    // the link of version 1 now says it was replaced, and takes no decision
    const old = await (await fetch(link)).text();
    expect(old).toContain('data-status="superseded"');
    expect(old).not.toContain('<form');

    // the buyer approves version 2 in the browser, then the shop (the final approver)
    const page2 = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await page2.goto(here(v2.approval.links[0].url));
    await page2.click('#approve button');
    await page2.waitForURL(/done=approve/);
    await page2.context().close();
    const final = await call('POST', `/api/orderitems/${item.orderItemId}/approval`, {
      key: a.shopKey,
      body: { decision: 'approve' },
    });
    expect(final.body).toMatchObject({ status: 'approved', version: 2 });
    const approved = await eventsOf(orderId, 'ProofApproved');
    expect(approved.map((e) => (e.data as { version: number }).version)).toEqual([2, 2]);
    for (const e of approved)
      expect((e.data as { printFileSha256: string }).printFileSha256).toBe(file2.sha256);

    // a design change after the approval, without a revision, changes nothing printed
    expect((await edit('Jane')).status).toBe(200);
    const imposed = await pressRun(item.orderItemId);
    expect(imposed.items).toMatchObject([
      { orderItemId: item.orderItemId, printFileSha256: file2.sha256 },
    ]);
    const scanned = await call('POST', '/v1/production/scans', {
      key: a.fulfillmentKey,
      body: { code: item.barcode?.value ?? item.orderItemId, stage: 'printed', station: 'Press 1' },
    });
    expect(scanned.status, JSON.stringify(scanned.body)).toBe(200);
    // past the edit window: no revision
    await refusedHere(409, 'POST', revisions, {
      key: a.shopKey,
      body: { projectId: a.projects[0] },
    });

    // the shop heard each step, in the messages' published shapes
    await until('order.approved delivered', async () =>
      heard(orderId, 'order.approved').length > 0 ? true : undefined,
    );
    const ready = heard(orderId, 'order.proof.ready');
    expect(ready.map((m) => m.data.version)).toEqual([1, 2]);
    for (const type of [
      'order.proof.ready',
      'order.proof.rejected',
      'order.proof.approved',
      'order.approved',
    ] as const)
      for (const m of heard(orderId, type)) MESSAGE_SCHEMAS[type].body.parse(m);
    const readyV2 = ready[1]!.data as unknown as {
      approvers: { role: string; url: string }[];
      printFileSha256: string;
    };
    expect(readyV2.printFileSha256).toBe(file2.sha256);
    expect(readyV2.approvers.map((x) => x.role)).toEqual(['buyer', 'shop']);
    // each approver's link in the message is the one the order shows, and opens its page
    expect(here(readyV2.approvers[0]!.url)).toBe(here(v2.approval.links[0].url));
    expect((await fetch(here(readyV2.approvers[1]!.url))).status).toBe(200);
    expect(heard(orderId, 'order.proof.rejected')[0]!.data).toMatchObject({
      version: 1,
      comment: 'the name is misspelt',
      pins: [{ page: 1, xMm: 20, yMm: 12, text: 'Jonh → John' }],
    });
    expect(heard(orderId, 'order.proof.approved')).toHaveLength(2);
    // the pull feed says the same, with the same links
    const feed = await call('GET', '/api/events?limit=1000', { key: a.shopKey });
    const fed = feed.body.events.filter(
      (m: { type: string; data: { orderId: string } }) =>
        m.type === 'order.proof.ready' && m.data.orderId === orderId,
    );
    expect(fed.map((m: { data: unknown }) => m.data)).toEqual(ready.map((m) => m.data));
    // no link is stored: no event or read model holds a token
    const token2 = new URL(readyV2.approvers[0]!.url).pathname.split('/').at(-1)!;
    const stored = await t.app.db.pool.query(
      `SELECT (SELECT count(*) FROM es_events WHERE data::text LIKE '%' || $1 || '%')
            + (SELECT count(*) FROM rm_order_items WHERE approval::text LIKE '%' || $1 || '%') AS n`,
      [token2.split('.')[2]],
    );
    expect(Number(stored.rows[0].n)).toBe(0);
  }, 240_000);

  it('approves with the buyer first and the shop last; the approved sha256 is the one batched', async () => {
    const orderId = 'PROOF-APPROVE';
    await notify(orderId);
    const item = (await proofed(orderId)).items[0];
    const path = `/api/orderitems/${item.orderItemId}/approval`;
    // the final approver cannot go first
    await refusedHere(409, 'POST', path, { key: a.shopKey, body: { decision: 'approve' } });
    // not an approver; bad pins; another label's keys: nothing recorded
    await refusedHere(400, 'POST', path, {
      key: a.shopKey,
      body: { decision: 'approve', onBehalfOf: 'Mallory' },
    });
    await refusedHere(400, 'POST', path, {
      key: a.adminKey,
      body: { decision: 'reject', pins: [{ page: 0, xMm: -1, yMm: 1, text: '' }] },
    });
    for (const key of [b.adminKey, b.shopKey])
      await refusedHere(404, 'POST', path, { key, body: { decision: 'approve' } });
    await refusedHere(404, 'GET', `/api/orderitem/${item.orderItemId}/proofs/1/pages/1`, {
      key: b.adminKey,
    });
    // the buyer approves through the link's form (as a browser posts it)
    const link = new URL(here(item.approval.links[0].url));
    const html = await (await fetch(link)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    expect(csrf).toBeTruthy();
    // without the page's field, or from another site: refused, nothing recorded
    await refusedHere(403, 'POST', link.pathname, {
      ...form({ decision: 'approve', _csrf: 'x' }),
    });
    await refusedHere(403, 'POST', link.pathname, {
      ...form({ decision: 'approve', _csrf: csrf! }, { origin: 'https://evil.example' }),
    });
    const posted = await fetch(link, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'approve', _csrf: csrf! }).toString(),
    });
    expect(posted.status).toBe(303);
    expect((await itemOf(orderId)).approval.status).toBe('awaiting_approval');
    const shop = await call('POST', path, { key: a.shopKey, body: { decision: 'approve' } });
    expect(shop.status, JSON.stringify(shop.body)).toBe(200);
    expect(shop.body).toMatchObject({ status: 'approved', version: 1 });
    const approved = await eventsOf(orderId, 'ProofApproved');
    expect(approved.map((e) => (e.data as { by: { role: string } }).by.role)).toEqual([
      'buyer',
      'shop',
    ]);
    const done = await itemOf(orderId);
    const sha = done.printFiles.at(-1).sha256;
    expect(done.approval).toMatchObject({ status: 'approved', approvedSha256: sha });
    for (const e of approved)
      expect((e.data as { printFileSha256: string }).printFileSha256).toBe(sha);
    // now production takes it
    await pressRun(item.orderItemId);
    // the link, once decided, shows the outcome and no forms
    const again = await (await fetch(link)).text();
    expect(again).toContain('data-status="approved"');
    expect(again).not.toContain('<form');
  }, 240_000);

  it('refuses tampered, expired and unknown links with 4xx, recording nothing', async () => {
    const orderId = 'PROOF-LINKS';
    await notify(orderId);
    const item = (await proofed(orderId)).items[0];
    const link = new URL(item.approval.links[0].url);
    const token = link.pathname.split('/').at(-1)!;
    const [, body, sig] = token.split('.');
    const forged = `p1.${Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), a: 1 }),
    ).toString('base64url')}.${sig}`;
    const expired = proofToken(t.editorTokenSecret, {
      labelId: a.labelId,
      orderItemId: item.orderItemId,
      approver: 0,
      version: 1,
      expiresAt: new Date(Date.now() - 1000),
    });
    const otherItem = proofToken(t.editorTokenSecret, {
      labelId: b.labelId,
      orderItemId: item.orderItemId,
      approver: 0,
      version: 1,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    // GET and POST answers: a token's signature is checked before the form's field, the
    // form's field before the item is looked up
    for (const [get, post, bad] of [
      [404, 404, forged],
      [404, 404, `${token.slice(0, -2)}AA`],
      [400, 400, 'p1.%00.x'],
      [410, 410, expired],
      [404, 403, otherItem],
    ] as const) {
      await refusedHere(get, 'GET', `/proofs/${bad}`);
      await refusedHere(post, 'POST', `/proofs/${bad}`, {
        ...form({ decision: 'approve', _csrf: 'x' }),
      });
    }
    expect(await eventsOf(orderId, 'ProofApproved')).toEqual([]);
  });

  it('records one approval when 50 race for the same approver', async () => {
    const orderId = 'PROOF-RACE';
    await notify(orderId);
    const item = (await proofed(orderId)).items[0];
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call('POST', `/api/orderitems/${item.orderItemId}/approval`, {
          key: a.shopKey,
          body: { decision: 'approve', onBehalfOf: 'buyer' },
        }),
      ),
    );
    expect(answers.every((r) => r.status === 200)).toBe(true);
    await settled(t);
    expect(await eventsOf(orderId, 'ProofApproved')).toHaveLength(1);
  }, 120_000);

  it('reminds the approvers after the reminder time, once, and expires the proof after its expiry', async () => {
    const orderId = 'PROOF-WAITS';
    await notify(orderId);
    const item = (await proofed(orderId)).items[0];
    const since = Date.parse(item.approval.since);
    const hours = (h: number) => new Date(since + h * 3_600_000);
    // the deadline watch, run as if the hours had passed (earlier tests' proofs wait too)
    const reminders = async () => (await eventsOf(orderId, 'ProofReminded')).length;
    await watchApprovals(t.app.context, hours(23));
    expect(await reminders()).toBe(0);
    expect(await watchApprovals(t.app.context, hours(25))).toBeGreaterThan(0);
    expect(await reminders()).toBe(1);
    await watchApprovals(t.app.context, hours(26));
    expect(await reminders()).toBe(1);
    await until('the reminder delivered', async () =>
      heard(orderId, 'order.proof.reminder').length > 0 ? true : undefined,
    );
    const reminder = heard(orderId, 'order.proof.reminder');
    expect(reminder).toHaveLength(1);
    MESSAGE_SCHEMAS['order.proof.reminder'].body.parse(reminder[0]);
    expect(
      (
        await fetch(
          here(
            (reminder[0]!.data as unknown as { approvers: { url: string }[] }).approvers[0]!.url,
          ),
        )
      ).status,
    ).toBe(200);
    // the whole order waited for it: expired, the order is cancelled
    await watchApprovals(t.app.context, hours(169));
    expect(await eventsOf(orderId, 'ProofExpired')).toHaveLength(1);
    await settled(t);
    const after = await call('GET', `/api/orders/${orderId}`, { key: a.adminKey });
    expect(after.body.status).toBe('cancelled');
    expect(after.body.items[0].approval.status).toBe('expired');
    await refusedHere(409, 'POST', `/api/orderitems/${item.orderItemId}/approval`, {
      key: a.shopKey,
      body: { decision: 'approve', onBehalfOf: 'buyer' },
    });
    await until('the expiry delivered', async () =>
      heard(orderId, 'order.proof.expired').length > 0 ? true : undefined,
    );
  }, 120_000);

  it('lets the operator waive an approval on the ops page, with a reason on record', async () => {
    const orderId = 'PROOF-WAIVE';
    await notify(orderId);
    const item = (await proofed(orderId)).items[0];
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.url}/ops/login`);
    await page.fill('input[name=key]', t.operatorKey);
    await page.click('button[type=submit]');
    await page.goto(`${t.url}/ops/approvals`);
    expect(await page.locator(`tr[data-item="${item.orderItemId}"]`).count()).toBe(1);
    await page.click(`tr[data-item="${item.orderItemId}"] a`);
    const section = page.locator(`section[data-item="${item.orderItemId}"] .approval`);
    expect(await section.getAttribute('data-approval-status')).toBe('awaiting_approval');
    expect(await section.locator('img').count()).toBeGreaterThan(0);
    page.on('dialog', (d) => void d.accept());
    await section.locator('input[name=reason]').fill('approved by phone');
    await section.locator('form button').click();
    await page.waitForURL(/done=approval_waived/);
    await context.close();
    const waived = await eventsOf(orderId, 'ApprovalWaived');
    expect(waived.map((e) => e.data)).toMatchObject([
      { by: 'operator', reason: 'approved by phone' },
    ]);
    expect(await eventsOf(orderId, 'OrderApproved')).toHaveLength(1);
    expect((await itemOf(orderId)).approval.status).toBe('waived');
  }, 120_000);

  it('takes a cancel in the edit window: nothing of the order is printed', async () => {
    const orderId = 'PROOF-CANCEL';
    await notify(orderId);
    const item = (await proofed(orderId)).items[0];
    const cancel = await call('POST', `/api/orders/${orderId}/cancel`, {
      key: a.adminKey,
      body: { reason: 'the buyer changed their mind' },
    });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    await refusedHere(409, 'POST', `/api/orderitems/${item.orderItemId}/approval`, {
      key: a.shopKey,
      body: { decision: 'approve', onBehalfOf: 'buyer' },
    });
    await refusedHere(409, 'POST', '/v1/production/batches', {
      key: a.fulfillmentKey,
      body: { items: [item.orderItemId], media: { preset: 'SRA3' }, mode: 'gang' },
    });
    expect(await eventsOf(orderId, 'OrderItemBatched')).toEqual([]);
  }, 120_000);

  it('lets a sale opt out of the policy, and a label without one opt in', async () => {
    await notify('PROOF-OPTOUT', { required: false });
    const r = await until('the opted-out order ready', async () => {
      const o = await call('GET', '/api/orders/PROOF-OPTOUT', { key: a.adminKey });
      return o.body?.status === 'ready' ? o.body : undefined;
    });
    expect(r.items[0].approval).toBeUndefined();
  }, 120_000);
});

import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { settled, snapshot } from '../helpers/fixtures.ts';
import { accessOf, type Shop, setUpShop, until } from '../helpers/orders.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * How long a page is given to show what it must: far above the slowest run seen (a render
 * after a retry took over 30 s on Node 20 beside another test file), so that a timeout
 * means it never came.
 */
const FAR_MS = 120_000;
// the README's screenshots are taken again with UPDATE_SCREENSHOTS=1; a plain run leaves
// the working tree as it found it and puts them in test-results/
const SCREENSHOTS = path.resolve(
  import.meta.dirname,
  process.env.UPDATE_SCREENSHOTS === '1' ? '../../docs' : '../../test-results/screenshots',
);

/**
 * The ops page in a real browser (Debian's chromium driven by playwright-core) against
 * the whole service over real HTTP, PostgreSQL and Temporal: an operator logs in, sees an
 * order arrive, finds the failed one, retries it and watches it become ready; a label
 * admin sees only its label; no action works without the session and its CSRF token.
 */
describe('the ops page in a browser', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let b: Shop;
  let browser: Browser;
  let photo: Buffer;
  let photoKey: string;

  beforeAll(async () => {
    t = await startTestApp({ TEMPORAL_UI_URL: 'http://temporal-ui.example:8233' });
    call = client(t.url);
    const access = accessOf(t);
    a = await setUpShop(call, access, 1);
    b = await setUpShop(call, access, 1);
    photo = await sharp({
      create: { width: 600, height: 400, channels: 3, background: '#2f6fbf' },
    })
      .composite([
        {
          input: Buffer.from(
            '<svg width="600" height="400"><circle cx="300" cy="200" r="150" fill="#f2c14e"/></svg>',
          ),
        },
      ])
      .png()
      .toBuffer();
    const sha = createHash('sha256').update(photo).digest('hex');
    photoKey = `${sha.slice(0, 2)}/${sha}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  const notify = async (shop: Shop, orderId: string, projects = shop.projects) => {
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.shopKey,
      body: {
        orderId,
        items: projects.map((projectId) => ({ itemId: 'line-1', projectId, quantity: 5 })),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  const orderIn = (shop: Shop, orderId: string, status: string) =>
    until(`order ${orderId} to be ${status}`, async () => {
      const r = await call('GET', `/api/orders/${orderId}`, { key: shop.adminKey });
      return r.body?.status === status ? r.body : undefined;
    });
  /** A project with a photo the image store then loses: its order fails until it is back. */
  async function photoProject(shop: Shop): Promise<string> {
    const r = await call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${shop.token}` },
      body: {
        name: 'Photo',
        sku: shop.sku,
        supplier: 'supplier-a',
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                {
                  type: 'image',
                  src: `data:image/png;base64,${photo.toString('base64')}`,
                  x: 5,
                  y: 5,
                  width: 45,
                  height: 30,
                },
                {
                  type: 'text',
                  text: 'Summer Fair 2026',
                  x: 5,
                  y: 38,
                  fontSize: 14,
                  color: '#1a2b3c',
                },
              ],
            },
          ],
        },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.id;
  }

  /** The history of the open order page: sentences, never raw data. */
  async function expectPlainHistory(page: Page) {
    const entries = await page.locator('ol.timeline li').allTextContents();
    expect(entries.length).toBeGreaterThan(2);
    for (const entry of entries) {
      expect(entry).not.toContain('{"');
      expect(entry).not.toMatch(/design\.areas\.\d/);
    }
    expect(await page.locator('main').textContent()).not.toContain('{"');
  }

  async function logIn(context: BrowserContext, key: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${t.url}/ops`);
    // not logged in: the login form
    await page.waitForURL(/\/ops\/login$/);
    await page.fill('input[name=key]', key);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/ops$/);
    return page;
  }

  let operatorContext: BrowserContext;
  let operatorPage: Page;

  it('logs the operator in, and shows a new order without a reload', async () => {
    await notify(a, `WELCOME-${randomUUID().slice(0, 6)}`);
    operatorContext = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    const page = await logIn(operatorContext, t.operatorKey);
    operatorPage = page;
    expect(await page.locator('h1').textContent()).toBe('Overview');
    // the key is not kept in the browser: only the HttpOnly session cookie
    const cookies = await operatorContext.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([
      ['ops_session', true, 'Strict'],
    ]);
    expect(JSON.stringify(cookies)).not.toContain(t.operatorKey);

    await page.click('nav a[href="/ops/orders"]');
    await page.waitForURL(/\/ops\/orders$/);
    const orderId = `ARRIVES-${randomUUID().slice(0, 6)}`;
    await notify(a, orderId);
    // the list refreshes by itself
    await page.locator(`tr[data-order="${orderId}"]`).waitFor({ timeout: FAR_MS });
    expect(await page.locator(`tr[data-order="${orderId}"] .badge`).first().textContent()).toMatch(
      /received|rendering|ready/,
    );
  }, 300_000);

  it('filters the failed orders, opens one, retries it and watches it become ready', async () => {
    const page = operatorPage;
    const orderId = `FAILS-${randomUUID().slice(0, 6)}`;
    const project = await photoProject(a);
    expect(await t.app.images.remove(photoKey, new Date(Date.now() + 60_000))).toBe(true);
    await notify(a, orderId, [project]);
    await orderIn(a, orderId, 'failed');

    // what the operator sees first: a failed order in the counts
    await page.goto(`${t.url}/ops`);
    expect(await page.locator('.card.alert .l').allTextContents()).toContain('failed');
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'ops-overview.png'), fullPage: true });
    await page.goto(`${t.url}/ops/orders`);
    await page.click('.tabs a:text-is("Failed")');
    await page.waitForURL(/status=failed/);
    const row = page.locator(`tr[data-order="${orderId}"]`);
    await row.waitFor();
    expect(await row.locator('td.error-text').last().textContent()).toContain('image');
    // the workflow is a link, not a column of ids; times read at a glance, on one line
    expect(await row.locator('a:text-is("workflow ↗")').count()).toBe(1);
    expect(await page.locator('table.orders th').allTextContents()).not.toContain('Workflow');
    const received = row.locator('td time').first();
    expect(await received.textContent()).toMatch(/^\d\d:\d\d$/);
    expect(await received.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    const lines = await row
      .locator('td:has(time)')
      .first()
      .evaluate((td) => {
        const e = td as unknown as { getClientRects(): { length: number }; offsetHeight: number };
        return e.offsetHeight;
      });
    expect(lines).toBeLessThan(40);
    await row.locator('a').first().click();
    await page.waitForURL(/\/ops\/labels\/.+\/orders\//);
    expect(await page.locator('h1 .badge').first().textContent()).toBe('failed');
    expect(await page.locator('.item .error-text').first().textContent()).toMatch(
      /^image missing: layer 1 on FRONT: the image is missing/,
    );
    expect(await page.locator('ol.timeline li[data-event="OrderItemFailed"]').count()).toBe(1);
    // the last error of a failed order, and the shop by its name
    expect(await page.locator('dl.facts dd.error-text').count()).toBe(1);
    expect(
      await page.locator('ol.timeline li[data-event="OrderReceived"] .meta').textContent(),
    ).toMatch(/by shop “Shop”/);

    // the image store has the photo again; the operator retries
    await t.app.images.put(photoKey, photo);
    await page.click('button:text-is("Retry failed items")');
    expect(await page.locator('.notice').textContent()).toContain('rendered again');
    // the page refreshes by itself until the order is ready
    await expect
      .poll(() => page.locator('h1 .badge').first().textContent(), {
        timeout: FAR_MS,
        message: 'the order page to show the retried order ready (it refreshes every 5 s)',
      })
      .toBe('ready');
    const retried = page.locator('ol.timeline li[data-event="OrderRetryRequested"]');
    expect(await retried.count()).toBe(1);
    expect(await retried.locator('.meta').textContent()).toContain('by the operator');
    // the history in sentences, no raw data; the old error is no longer shown as current
    await expectPlainHistory(page);
    expect(await page.locator('dl.facts dd.error-text').count()).toBe(0);
    // previews of the print file's pages
    const preview = page.locator('.previews img').first();
    await preview.waitFor();
    // drawn at a low priority: a loaded machine took past poll's default second once
    await expect
      .poll(
        () =>
          preview.evaluate(
            (img) => (img as unknown as { complete: boolean; naturalWidth: number }).naturalWidth,
          ),
        { timeout: 60_000 },
      )
      .toBeGreaterThan(100);
    expect(
      await page.locator('dl.facts a[href^="http://temporal-ui.example:8233/namespaces/"]').count(),
    ).toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'ops-order.png'), fullPage: true });
  }, 400_000);

  it('shows a cancelled order’s items as cancelled, and its history in sentences', async () => {
    const page = operatorPage;
    const orderId = `CANCEL-${randomUUID().slice(0, 6)}`;
    await notify(a, orderId);
    await orderIn(a, orderId, 'ready');
    await page.goto(`${t.url}/ops/labels/${a.labelId}/orders/${orderId}`);
    page.once('dialog', (d) => void d.accept());
    await page.click('button:text-is("Cancel order")');
    await expect
      .poll(() => page.locator('h1 .badge').first().textContent(), {
        timeout: FAR_MS,
        message: 'the order page to show the order cancelled',
      })
      .toBe('cancelled');
    const items = page.locator('.item h3 .badge');
    expect(await items.allTextContents()).toEqual(['cancelled']);
    await expectPlainHistory(page);
    expect(
      await page.locator('ol.timeline li[data-event="OrderCancelled"] .type').textContent(),
    ).toBe('Order cancelled');
    // and in the list: cancelled, not "1/1 ready"
    await page.goto(`${t.url}/ops/orders?status=cancelled`);
    expect(
      (await page.locator(`tr[data-order="${orderId}"] td`).allTextContents()).join(' '),
    ).toContain('cancelled');
    expect(
      (await page.locator(`tr[data-order="${orderId}"] td`).allTextContents()).join(' '),
    ).not.toContain('ready');
  }, 300_000);

  it('holds and releases an order, reprints a shipped item, and shows the shop floor', async () => {
    const page = operatorPage;
    const orderId = `FLOOR-${randomUUID().slice(0, 6)}`;
    await notify(a, orderId);
    await orderIn(a, orderId, 'ready');
    await page.goto(`${t.url}/ops/labels/${a.labelId}/orders/${orderId}`);
    await page.fill('input[name="reason"][aria-label="hold reason"]', 'customer called');
    await page.click('button:text-is("Put on hold")');
    await expect
      .poll(() => page.locator('[data-hold]').textContent(), {
        timeout: FAR_MS,
        message: 'the hold and its reason on the order page',
      })
      .toContain('customer called');
    expect(await page.locator('dd', { hasText: 'clock paused' }).count()).toBe(1);
    await page.click('[data-hold] button:text-is("Release")');
    await expect
      .poll(() => page.locator('[data-hold]').count(), {
        timeout: FAR_MS,
        message: 'the hold gone from the order page after its release',
      })
      .toBe(0);
    const shipped = await call('POST', `/v1/orders/${orderId}/shipments`, {
      key: a.fulfillmentKey,
      body: { carrier: 'DHL', trackingNumber: 'JJD0001', trackingUrl: 'https://dhl.example/t/1' },
    });
    expect(shipped.status).toBe(201);
    await page.reload();
    expect(await page.locator('table.shipments a').getAttribute('href')).toBe(
      'https://dhl.example/t/1',
    );
    page.once('dialog', (d) => void d.accept());
    await page.selectOption('select[name="reason"]', 'damaged');
    await page.click('button:text-is("Reprint")');
    await expect
      .poll(() => page.locator('ol.production li').allTextContents(), {
        timeout: FAR_MS,
        message: 'the production history to end with the reprint ready',
      })
      .toEqual([
        expect.stringContaining('ready'),
        expect.stringContaining('on hold'),
        expect.stringContaining('released'),
        expect.stringContaining('shipped'),
        expect.stringContaining('reprinting'),
        expect.stringContaining('ready'),
      ]);
    await page.goto(`${t.url}/ops/production`);
    expect(await page.locator('.board .column[data-stage="ready"] .n').textContent()).toMatch(
      /^[1-9]\d*$/,
    );
  }, 500_000);

  it('shows a label admin only its own label', async () => {
    const theirs = `B-ONLY-${randomUUID().slice(0, 6)}`;
    await notify(b, theirs);
    await orderIn(b, theirs, 'ready');
    const context = await browser.newContext();
    const page = await logIn(context, b.adminKey);
    expect(await page.locator('nav .who').textContent()).toContain('Admin of');
    expect(await page.locator('nav a[href="/ops/projections"]').count()).toBe(0);
    await page.goto(`${t.url}/ops/orders`);
    const rows = page.locator('table.orders tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-order')).toBe(theirs);
    // another label's order, its files and the operator's pages are not found
    const other = await call('GET', `/api/orders?limit=1`, { key: a.adminKey });
    const aOrder = other.body.orders[0];
    for (const url of [
      `/ops/labels/${a.labelId}/orders/${aOrder.orderId}`,
      `/ops/orders?labelId=${a.labelId}`,
      '/ops/projections',
    ]) {
      const r = await page.goto(`${t.url}${url}`);
      if (url.startsWith('/ops/orders')) {
        // a label admin's list is its label's, whatever the filter asks
        expect(await page.locator('table.orders tbody tr').count()).toBe(1);
      } else expect(r?.status(), url).toBe(404);
    }
    await context.close();
  }, 60_000);

  it('refuses every action without the session and its CSRF token, and changes nothing', async () => {
    const orderId = (await call('GET', '/api/orders?status=ready&limit=1', { key: a.adminKey }))
      .body.orders[0].orderId;
    const action = `${t.url}/ops/labels/${a.labelId}/orders/${orderId}/cancel`;
    const cookie = (await operatorContext.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const post = (headers: Record<string, string>, body: string) =>
      fetch(action, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    await settled(t);
    const before = await snapshot(t);
    const attempts = [
      ['no session', await post({}, 'reason=x')],
      ['a forged session', await post({ cookie: 'ops_session=v1.e30.AAAA' }, 'reason=x')],
      ['no CSRF token', await post({ cookie }, 'reason=x')],
      ['a wrong CSRF token', await post({ cookie }, '_csrf=not-the-token&reason=x')],
      [
        'another site',
        await post({ cookie, origin: 'https://evil.example' }, '_csrf=whatever&reason=x'),
      ],
    ] as const;
    for (const [what, r] of attempts) {
      expect([401, 403], what).toContain(r.status);
      expect(r.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
    }
    await settled(t);
    expect(await snapshot(t)).toBe(before);
    // NUL and broken escapes reach no action either
    for (const body of ['reason=a%00b', 'reason=%E0%A4%A', `_csrf=${'%'}`]) {
      const r = await post({ cookie }, body);
      expect(r.status, body).toBeGreaterThanOrEqual(400);
      expect(r.status, body).toBeLessThan(500);
    }
    const nul = await fetch(`${t.url}/ops/orders?q=a%00b`, { headers: { cookie } });
    expect(nul.status).toBe(400);
    expect(await snapshot(t)).toBe(before);
  }, 60_000);

  it('logs out for good: the old cookie, kept and sent again, opens nothing', async () => {
    const page = operatorPage;
    await page.goto(`${t.url}/ops`);
    const kept = (await operatorContext.cookies()).find((c) => c.name === 'ops_session');
    expect(kept).toBeDefined();
    const cookie = `ops_session=${kept!.value}`;
    // the session is listed on the sessions page, marked as this browser's
    await page.goto(`${t.url}/ops/sessions`);
    expect(await page.locator(`tr[data-session] .badge:text-is("this browser")`).count()).toBe(1);
    await page.click('nav button:text-is("Log out")');
    await page.waitForURL(/\/ops\/login$/);
    expect((await operatorContext.cookies()).map((c) => c.name)).not.toContain('ops_session');
    await page.goto(`${t.url}/ops/orders`);
    await page.waitForURL(/\/ops\/login$/);
    // the cookie as it was before the logout: ended on the server, so to the login page
    const again = await fetch(`${t.url}/ops`, { headers: { cookie }, redirect: 'manual' });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/ops/login');
    const post = await fetch(`${t.url}/ops/labels/${a.labelId}/orders/x/retry`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '_csrf=x',
      redirect: 'manual',
    });
    expect(post.status).toBe(401);
    await operatorContext.close();
  }, 30_000);

  it('ends a session from another browser', async () => {
    const first = await browser.newContext();
    const second = await browser.newContext();
    try {
      const one = await logIn(first, b.adminKey);
      const two = await logIn(second, b.adminKey);
      await two.goto(`${t.url}/ops/sessions`);
      const other = two.locator('tr[data-session]', { hasNot: two.locator('text=this browser') });
      const otherId = await other.first().getAttribute('data-session');
      const mine = await two
        .locator('tr[data-session]', { has: two.locator('text=this browser') })
        .getAttribute('data-session');
      expect(otherId).not.toBe(mine);
      await two.click(`tr[data-session="${otherId}"] button:text-is("End session")`);
      await two.waitForURL(/\/ops\/sessions\?done=session_ended$/);
      // the first browser is logged out; the second goes on
      await one.goto(`${t.url}/ops/orders`);
      await one.waitForURL(/\/ops\/login$/);
      await two.goto(`${t.url}/ops/orders`);
      await two.waitForURL(/\/ops\/orders$/);
      // an operator session cannot be ended by a label admin, nor the other way round
      const stranger = await fetch(`${t.url}/ops/sessions/${randomUUID()}/end`, {
        method: 'POST',
        headers: {
          cookie: (await second.cookies()).map((c) => `${c.name}=${c.value}`).join('; '),
          'content-type': 'application/x-www-form-urlencoded',
          origin: t.url,
        },
        body: `_csrf=${encodeURIComponent((await two.locator('nav input[name=_csrf]').getAttribute('value')) ?? '')}`,
        redirect: 'manual',
      });
      expect(stranger.status).toBe(404);
    } finally {
      await first.close();
      await second.close();
    }
  }, 60_000);

  it('logs nobody in from another site (login CSRF)', async () => {
    // the attacker's page, on another site (localhost, not 127.0.0.1), posts the login
    // form with the attacker's own key and a login token the attacker fetched for himself
    const own = await fetch(`${t.url}/ops/login`);
    const token = /name="_login" value="([^"]+)"/.exec(await own.text())![1]!;
    const attacker = http.createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><form id="f" method="post" action="${t.url}/ops/login">
        <input name="_login" value="${token}"><input name="key" value="${a.adminKey}">
        </form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((r) => attacker.listen(0, 'localhost', r));
    const victim = await browser.newContext();
    try {
      // the victim has visited the login page before: a login cookie of their own
      const page = await victim.newPage();
      await page.goto(`${t.url}/ops/login`);
      const answered = page.waitForResponse(
        (r) => r.url() === `${t.url}/ops/login` && r.request().method() === 'POST',
      );
      await page.goto(`http://localhost:${(attacker.address() as { port: number }).port}/`);
      const r = await answered;
      expect(r.status()).toBe(403);
      expect((await victim.cookies()).map((c) => c.name)).not.toContain('ops_session');
      // and without a browser's Origin, the token alone decides: a forged one is refused
      const forged = await fetch(`${t.url}/ops/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: 'ops_login=somebody-elses',
        },
        body: new URLSearchParams({ _login: token, key: a.adminKey }).toString(),
        redirect: 'manual',
      });
      expect(forged.status).toBe(403);
      expect(forged.headers.get('set-cookie') ?? '').not.toContain('ops_session');
    } finally {
      await victim.close();
      attacker.close();
    }
  }, 30_000);
});

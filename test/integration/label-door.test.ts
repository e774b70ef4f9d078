import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proofToken } from '../../src/app/proof-links.ts';
import { COSTS } from '../../src/http/door.ts';
import { DEFAULT_SHARES, type LabelDoor } from '../../src/shares/door.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { anotherLabelServed, expectOthersServed, watchLoop } from '../helpers/loop-watch.ts';
import { accessOf, orderDone, type Shop, setUpShop, until } from '../helpers/orders.ts';

/**
 * The one door: a label's flood of one cost class waits in that label's own line, and
 * past its share is told to come back (429 over_share, the class named, Retry-After),
 * while another label is served as if nothing happened.
 */
describe('the label door', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;
  let b: Shop;
  let eventId: string;
  let treeSize: number;

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    a = await setUpShop(call, accessOf(t), 1);
    b = await setUpShop(call, accessOf(t), 1);
    const sale = await call('POST', '/webhook/notifyorder', {
      key: a.shopKey,
      body: { orderId: 'DOOR-1', items: [{ itemId: 'l1', projectId: a.projects[0], quantity: 1 }] },
    });
    expect(sale.status, JSON.stringify(sale.body)).toBe(200);
    const done = await orderDone(call, a, 'DOOR-1').catch(async (err) => {
      console.log(JSON.stringify(await call('GET', '/api/orders/DOOR-1', { key: a.adminKey })));
      throw err;
    });
    expect(done.status).toBe('ready');
    const bundle = await call('GET', '/api/orders/DOOR-1/audit-bundle', { key: a.adminKey });
    expect(bundle.status, JSON.stringify(bundle.body)).toBe(200);
    eventId = bundle.body.events[0].event.id;
    const head = await call('GET', '/api/audit/tree-head', { key: a.adminKey });
    expect(head.status).toBe(200);
    treeSize = head.body.treeSize;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it("answers 429 over_share with the class and Retry-After once a label's heavy-read places are all taken, and serves its other classes and other labels meanwhile", async () => {
    const door = t.app.door!;
    const share = door.shareOf(a.labelId, 'heavy_read');
    // the label's running places taken, and every waiting one
    const running = await Promise.all(
      Array.from({ length: share.running }, () => door.enter(a.labelId, 'heavy_read')),
    );
    // each leaves as soon as it is let in
    // (a waiter past DOOR_WAIT_MS is refused: the page then waits, and is refused, all the same)
    const waiting = Array.from({ length: share.waiting }, () =>
      door.enter(a.labelId, 'heavy_read').then(
        (leave) => leave(),
        () => {},
      ),
    );
    const refused = await call('GET', `/api/audit/inclusion?eventId=${eventId}`, {
      key: a.fulfillmentKey,
    });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('over_share');
    expect(refused.body.costClass).toBe('heavy_read');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // the same label's cheap read, and another label's heavy read, pass at once
    expect((await call('GET', '/api/orders/DOOR-1', { key: a.adminKey })).status).toBe(200);
    expect((await call('GET', '/api/orders', { key: b.adminKey })).status).toBe(200);
    for (const leave of running) leave();
    await Promise.all(waiting);
    // every place given back: the label's proof is answered again
    const again = await call('GET', `/api/audit/inclusion?eventId=${eventId}`, {
      key: a.fulfillmentKey,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
  });

  it("takes 300 concurrent audit proofs of one label in its own line while another label's sale is rendered and read", async () => {
    const watch = watchLoop(t.url);
    const served = anotherLabelServed(call, b);
    const flood = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(
          i % 2 === 0
            ? `${t.url}/api/audit/inclusion?eventId=${eventId}`
            : `${t.url}/api/audit/consistency?from=1&to=${treeSize}`,
          { headers: { 'x-api-key': a.fulfillmentKey } },
        ).then(async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          body: (await r.json()) as { code?: string; costClass?: string },
        })),
      ),
    );
    const elsewhere = await served;
    const seen = await watch.stop();
    const refused = flood.filter((r) => r.status === 429);
    // how many were refused depends on how fast the others were answered: a figure
    console.log(
      `[audit proof flood] ${flood.length - refused.length} answered, ${refused.length} refused over_share`,
    );
    for (const r of refused) {
      expect(r.body.code).toBe('over_share');
      expect(r.body.costClass).toBe('heavy_read');
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    for (const r of flood.filter((x) => x.status !== 429))
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    expectOthersServed(seen, elsewhere);
  });

  it("keeps another label's cheap reads and the same label's other classes out of a heavy-read line", async () => {
    const flood = Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(`${t.url}/api/orders?limit=100`, { headers: { 'x-api-key': a.adminKey } }).then(
          (r) => r.status,
        ),
      ),
    );
    const mine = await call('GET', '/api/orders/DOOR-1', { key: a.adminKey });
    const theirs = await call('GET', '/api/branding', { key: b.adminKey });
    const statuses = await flood;
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
  });

  it("charges an approver's proof page to the label its link names, before anything is looked up", async () => {
    const door = t.app.door!;
    const share = door.shareOf(a.labelId, 'heavy_read');
    const link = (labelId: string) =>
      `${t.url}/proofs/${proofToken(t.editorTokenSecret, {
        labelId,
        orderItemId: randomUUID(),
        approver: 0,
        version: 1,
        expiresAt: new Date(Date.now() + 3_600_000),
      })}`;
    // every running place of label a's heavy reads taken, and every waiting one
    const held = await Promise.all(
      Array.from({ length: share.running }, () => door.enter(a.labelId, 'heavy_read')),
    );
    // (a waiter past DOOR_WAIT_MS is refused: the page then waits, and is refused, all the same)
    const waiting = Array.from({ length: share.waiting }, () =>
      door.enter(a.labelId, 'heavy_read').then(
        (leave) => leave(),
        () => {},
      ),
    );
    try {
      const page = await fetch(link(a.labelId));
      expect(page.status).toBe(429);
      expect(((await page.json()) as { costClass?: string }).costClass).toBe('heavy_read');
      // label b's link is not held behind it: looked up (no such proof)
      expect((await fetch(link(b.labelId))).status).toBe(404);
    } finally {
      for (const leave of held) leave();
      await Promise.all(waiting);
    }
  });

  it('names only routes that exist in its table of costs', () => {
    const missing = Object.keys(COSTS).filter((key) => {
      const [method, path] = key.split(' ') as [string, string];
      const url = path.replace(/\{([^}]+)\}/g, ':$1');
      return !t.app.http!.hasRoute({ method: method as 'GET', url });
    });
    expect(missing).toEqual([]);
  });

  it('gives every place back: after the floods a label has its whole share again', async () => {
    const again = await Promise.all(
      Array.from({ length: t.app.door!.shareOf(a.labelId, 'heavy_read').running }, () =>
        call('GET', `/api/audit/inclusion?eventId=${eventId}`, { key: a.fulfillmentKey }),
      ),
    );
    expect(again.map((r) => r.status)).toEqual(again.map(() => 200));
  });
});

/**
 * A label's share is the deployment's: with two API processes on one database, each
 * takes its part, so a label flooding both has no more running than its share in all;
 * the operator's factor reaches both.
 */
describe('the label door across two API processes', () => {
  let t: TestApp;
  let second: TestApp;
  let call: ReturnType<typeof client>;
  let a: Shop;

  beforeAll(async () => {
    t = await startTestApp();
    second = await startTestApp({ DATABASE_URL: t.config.databaseUrl! }, { roles: ['api'] });
    call = client(t.url);
    a = await setUpShop(call, accessOf(t), 1);
  });
  afterAll(async () => {
    await second?.stop();
    await t?.stop();
  });

  const doors = () => [t.app.door!, second.app.door!];

  it("splits each label's share between the processes, and a label flooding both is refused past it", async () => {
    // each counts the other within a heartbeat (5 s) of its start
    await until(
      'both processes to count two',
      async () =>
        doors().every((d) => d.shareOf(a.labelId, 'heavy_read').running === 2) || undefined,
      30_000,
    );
    // the first process's part taken: it refuses, the second still lets the label in
    const [first, other] = doors() as [LabelDoor, LabelDoor];
    const part = first.shareOf(a.labelId, 'heavy_read');
    const held = await Promise.all(
      Array.from({ length: part.running }, () => first.enter(a.labelId, 'heavy_read')),
    );
    const queued = Array.from({ length: part.waiting }, () =>
      first.enter(a.labelId, 'heavy_read').then((leave) => leave()),
    );
    const here = await call('GET', '/api/orders', { key: a.adminKey });
    expect(here.status).toBe(429);
    expect(here.body.costClass).toBe('heavy_read');
    const there = await client(second.url)('GET', '/api/orders', { key: a.adminKey });
    expect(there.status, JSON.stringify(there.body)).toBe(200);
    // so the label's requests running across both never exceed its whole share
    const whole = DEFAULT_SHARES.heavy_read.running;
    expect(part.running + other.shareOf(a.labelId, 'heavy_read').running).toBeLessThanOrEqual(
      whole,
    );
    for (const leave of held) leave();
    await Promise.all(queued);
  });

  it("raises one label's share in every process when the operator sets its factor", async () => {
    const bad = await call('PUT', `/operator/labels/${a.labelId}/share`, {
      key: t.operatorKey,
      body: { factor: 0 },
    });
    expect(bad.status).toBe(400);
    const unknown = await call(
      'PUT',
      '/operator/labels/00000000-0000-4000-8000-000000000000/share',
      {
        key: t.operatorKey,
        body: { factor: 2 },
      },
    );
    expect(unknown.status).toBe(404);
    const set = await call('PUT', `/operator/labels/${a.labelId}/share`, {
      key: t.operatorKey,
      body: { factor: 4 },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({ labelId: a.labelId, factor: 4 });
    // the whole share times four, split in two
    const expected = (DEFAULT_SHARES.heavy_read.running * 4) / 2;
    await until(
      'both processes to know the factor',
      async () =>
        doors().every((d) => d.shareOf(a.labelId, 'heavy_read').running === expected) || undefined,
      30_000,
    );
    // the label's own key cannot set it
    const own = await call('PUT', `/operator/labels/${a.labelId}/share`, {
      key: a.adminKey,
      body: { factor: 64 },
    });
    expect(own.status).toBe(403);
  });
});

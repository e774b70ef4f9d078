import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leafBytes } from '../../src/domain/audit/leaf.ts';
import {
  consistencyProof,
  inMemory,
  leafHash,
  rootHash,
  verifyConsistency,
  verifyInclusion,
} from '../../src/domain/audit/merkle.ts';
import { client, joiningEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import { exportLog, jsonFiles, verifier } from '../helpers/audit.ts';
import { opsLogin, settled } from '../helpers/fixtures.ts';
import { accessOf, notify, orderDone, type Shop, setUpShop, until } from '../helpers/orders.ts';

const save = jsonFiles('audit-e2e-');
const unhex = (h: string) => Buffer.from(h, 'hex');

/**
 * The audit log over real HTTP against the real PostgreSQL and Temporal: an order's
 * bundle, checked offline by the verifier script with the public keys as served; a byte
 * of one of its events changed in PostgreSQL directly, and its new bundle refused; proofs
 * of inclusion and consistency; another label's key finds nothing of this label's.
 */
describe('the audit log', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let shop: Shop;
  let other: Shop;
  let orderId: string;
  let otherOrder: string;

  beforeAll(async () => {
    t = await startTestApp({ AUDIT_HEAD_INTERVAL_MS: '200', AUDIT_SWEEP_MS: '100' });
    call = client(t.url);
    shop = await setUpShop(call, accessOf(t), 1);
    other = await setUpShop(call, accessOf(t), 1);
    orderId = `AUD-${randomUUID().slice(0, 8)}`;
    expect(await notify(call, shop, orderId)).toBe(200);
    expect((await orderDone(call, shop, orderId)).status).toBe('ready');
    otherOrder = `AUDO-${randomUUID().slice(0, 8)}`;
    expect(await notify(call, other, otherOrder)).toBe(200);
    expect((await orderDone(call, other, otherOrder)).status).toBe('ready');
    await settled(t);
  }, 240_000);
  afterAll(async () => t?.stop());

  it("gives an order's bundle that the verifier checks offline, and refuses it once an event was changed", async () => {
    const keys = save(
      'keys.json',
      (await call('GET', '/api/audit/public-keys', { key: shop.adminKey })).body,
    );
    const bundle = await call('GET', `/api/orders/${orderId}/audit-bundle`, { key: shop.adminKey });
    expect(bundle.status, JSON.stringify(bundle.body)).toBe(200);
    expect(bundle.body.events.map((e: { event: { type: string } }) => e.event.type)).toContain(
      'PrintFileGenerated',
    );
    const kept = save('bundle.json', bundle.body);
    expect(verifier(kept, '--public-keys', keys)).toMatchObject({ code: 0 });
    // the shop's own key gets it too; the operator's names no label
    expect(
      (await call('GET', `/api/orders/${orderId}/audit-bundle`, { key: shop.shopKey })).status,
    ).toBe(200);
    expect(
      (await call('GET', `/api/orders/${orderId}/audit-bundle`, { key: t.operatorKey })).status,
    ).toBe(403);

    // one byte of the print file's sha256, changed in the database behind the service's back;
    // its first digit becomes another (a fixed 'f' left one hash in sixteen unchanged)
    const ready = bundle.body.events.find(
      (e: { event: { type: string } }) => e.event.type === 'PrintFileGenerated',
    );
    const sha: string = ready.event.data.sha256;
    const changedRow = await t.app.db.pool.query(
      `UPDATE es_events SET data = replace(data::text, $2, $3)::json WHERE event_id = $1
       RETURNING data::text AS data`,
      [ready.event.id, sha, `${sha.startsWith('f') ? '0' : 'f'}${sha.slice(1)}`],
    );
    expect(changedRow.rows[0].data).not.toContain(sha);
    const after = await call('GET', `/api/orders/${orderId}/audit-bundle`, { key: shop.adminKey });
    const changed = verifier(save('after.json', after.body), '--public-keys', keys);
    expect(changed.code).toBe(1);
    expect(changed.said).toContain(`event ${ready.event.id}`);
    // what the shop kept still verifies against its own head
    expect(verifier(kept, '--public-keys', keys).code).toBe(0);
    // the tree is never made again: a tree made from the changed log (as anyone can,
    // from an export) has another root at the kept head's size, and no consistency
    // proof from the kept head to it holds
    const head = bundle.body.treeHead;
    const file = path.join(path.dirname(kept), 'log.ndjson');
    const log = exportLog(joiningEnv(t), file);
    const remade = verifier(
      '--log',
      file,
      '--head',
      save('kept-head.json', head),
      '--public-keys',
      keys,
    );
    expect(remade.code).toBe(1);
    expect(remade.said).toContain(`the first ${head.treeSize} events of the export do not make`);
    const scratch = inMemory(log.map((e) => leafHash(leafBytes(e))));
    const proof = await consistencyProof(scratch, head.treeSize, log.length);
    expect(
      verifyConsistency(
        head.treeSize,
        log.length,
        proof,
        unhex(head.rootHash),
        await rootHash(scratch, log.length),
      ),
    ).toBe(false);
  });

  it('finds a changed, a deleted and two swapped events in its sweep, and goes on serving', async () => {
    const sweepFound = (eventId: string) =>
      until(
        `the sweep to report ${eventId}`,
        async () => {
          const r = await t.app.db.pool.query(
            'SELECT kind FROM audit_mismatches WHERE event_id = $1',
            [eventId],
          );
          return r.rows[0]?.kind as string | undefined;
        },
        60_000,
      );
    const bundle = (
      await call('GET', `/api/orders/${orderId}/audit-bundle`, { key: shop.adminKey })
    ).body;
    const ready = bundle.events.find(
      (e: { event: { type: string } }) => e.event.type === 'PrintFileGenerated',
    );
    // the byte changed in the test before
    expect(await sweepFound(ready.event.id)).toBe('changed');
    const metrics = String((await call('GET', '/metrics', { key: t.operatorKey })).body);
    expect(metrics).toMatch(/editor_platform_audit_mismatches \d+/);
    expect(
      Number(/editor_platform_audit_mismatches (\d+)/.exec(metrics)?.[1]),
    ).toBeGreaterThanOrEqual(1);
    // the operator's overview names it; /readyz stays green
    const cookie = await opsLogin(t.url, t.operatorKey);
    const overview = await (await fetch(`${t.url}/ops`, { headers: { cookie } })).text();
    expect(overview).toContain(`data-audit-mismatch="${ready.event.id}"`);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
    // another label's events: one deleted, two swapped (their data exchanged)
    const others = (
      await call('GET', `/api/orders/${otherOrder}/audit-bundle`, { key: other.adminKey })
    ).body.events;
    const [a, b, c] = others.map((e: { event: { id: string } }) => e.event.id);
    await t.app.db.pool.query('DELETE FROM es_events WHERE event_id = $1', [c]);
    await t.app.db.pool.query(
      `UPDATE es_events SET data = CASE event_id WHEN $1 THEN (SELECT data FROM es_events WHERE event_id = $2)
                                                  ELSE (SELECT data FROM es_events WHERE event_id = $1) END
       WHERE event_id IN ($1, $2)`,
      [a, b],
    );
    expect(await sweepFound(c)).toBe('missing');
    expect(await sweepFound(a)).toBe('changed');
    expect(await sweepFound(b)).toBe('changed');
  });

  it('proves an event in the tree and a later tree consistent with an earlier one', async () => {
    const head = (await call('GET', '/api/audit/tree-head', { key: shop.adminKey })).body;
    const bundle = (
      await call('GET', `/api/orders/${orderId}/audit-bundle`, { key: shop.adminKey })
    ).body;
    const first = bundle.events[0];
    const inclusion = await call(
      'GET',
      `/api/audit/inclusion?eventId=${first.event.id}&treeSize=${head.treeSize}`,
      { key: shop.fulfillmentKey },
    );
    expect(inclusion.status, JSON.stringify(inclusion.body)).toBe(200);
    expect(inclusion.body.leafIndex).toBe(first.leafIndex);
    // more of the log, a later head, and the proof that it extends the first
    expect(await notify(call, other, `AUD2-${randomUUID().slice(0, 8)}`)).toBe(200);
    await settled(t);
    const later = await call('GET', `/api/orders/${orderId}/audit-bundle`, { key: shop.adminKey });
    // heads are signed every AUDIT_HEAD_INTERVAL_MS when the tree grew
    const laterHead = await until('a later signed head', async () => {
      const h = (await call('GET', '/api/audit/tree-head', { key: shop.adminKey })).body;
      return h.treeSize > head.treeSize ? h : undefined;
    });
    const proof = await call(
      'GET',
      `/api/audit/consistency?from=${head.treeSize}&to=${laterHead.treeSize}`,
      {
        key: shop.shopKey,
      },
    );
    expect(proof.status).toBe(200);
    expect(
      verifyConsistency(
        head.treeSize,
        laterHead.treeSize,
        proof.body.proof.map(unhex),
        unhex(head.rootHash),
        unhex(laterHead.rootHash),
      ),
    ).toBe(true);
    const keys = save(
      'keys2.json',
      (await call('GET', '/api/audit/public-keys', { key: shop.adminKey })).body,
    );
    expect(later.status).toBe(200);
    // the verifier, with the head the shop kept earlier: the later one extends it
    expect(
      verifier(
        save('later.json', { ...later.body, treeHead: laterHead, events: [] }),
        '--public-keys',
        keys,
        '--earlier',
        save('earlier.json', head),
        '--consistency',
        save('proof.json', proof.body),
      ),
    ).toMatchObject({ code: 0 });
    // the inclusion proof as served proves the event, hashed as the bundle holds it
    const leaf = leafHash(leafBytes(first.event));
    const proofOf = inclusion.body.proof.map(unhex);
    expect(
      verifyInclusion(leaf, first.leafIndex, head.treeSize, proofOf, unhex(head.rootHash)),
    ).toBe(true);
    expect(
      verifyInclusion(leaf, first.leafIndex + 1, head.treeSize, proofOf, unhex(head.rootHash)),
    ).toBe(false);
    // bad sizes are refused, naming the field
    const bad = await call('GET', `/api/audit/consistency?from=5&to=${laterHead.treeSize + 1000}`, {
      key: shop.adminKey,
    });
    expect(bad.status).toBe(400);
  });

  it("finds nothing of one label with another label's key", async () => {
    const bundle = (
      await call('GET', `/api/orders/${orderId}/audit-bundle`, { key: shop.adminKey })
    ).body;
    expect(
      (await call('GET', `/api/orders/${orderId}/audit-bundle`, { key: other.adminKey })).status,
    ).toBe(404);
    const inclusion = await call(
      'GET',
      `/api/audit/inclusion?eventId=${bundle.events[0].event.id}`,
      {
        key: other.adminKey,
      },
    );
    expect(inclusion.status).toBe(404);
    // the operator sees every label's
    expect(
      (
        await call('GET', `/api/audit/inclusion?eventId=${bundle.events[0].event.id}`, {
          key: t.operatorKey,
        })
      ).status,
    ).toBe(200);
  });
});

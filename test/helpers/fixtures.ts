import { expect } from 'vitest';
import { allProjections } from '../../projections/index.ts';
import { EVERY_EVENT } from '../../projections/projection.ts';
import { comparePositions, type Position } from '../../src/eventstore/port.ts';
import type { client, TestApp } from './app.ts';

type Call = ReturnType<typeof client>;

export interface Label {
  labelId: string;
  partnerId: number;
  adminApiKey: string;
  fulfillmentApiKey: string;
}

export async function newLabel(call: Call, t: TestApp, name: string): Promise<Label> {
  const r = await call('POST', '/operator/labels', { key: t.operatorKey, body: { name } });
  expect(r.status).toBe(201);
  return r.body;
}

export async function newIntegration(
  call: Call,
  t: TestApp,
  adminKey: string,
  offering: boolean,
): Promise<{ id: string; apiKey: string }> {
  const r = await call('POST', '/api/shop-integration', {
    key: adminKey,
    body: { name: 'Shop', shopSystem: 'test', shopUrl: 'https://shop.example' },
  });
  expect(r.status).toBe(201);
  if (offering) {
    const p = await call('PUT', `/operator/shop-integration/${r.body.id}/permissions`, {
      key: t.operatorKey,
      body: { permissions: ['offering'] },
    });
    expect(p.status).toBe(200);
  }
  return { id: r.body.id, apiKey: r.body.apiKey };
}

/**
 * Waits until every projection has seen every event committed so far. The head is read
 * without the store's xmin horizon (headPosition honours it, and a transaction in
 * another test's database can hold it back for a moment). A projection is woken only by
 * appends of the types it handles: one with none of those past its checkpoint has
 * nothing to apply, so it is not waited for (it catches up at its next wake-up); nor is the
 * audit tree, which follows every event a moment later (its tests wait for it). The
 * checkpoint is read as stored (a rebuild resets it there), and passes repeat until one
 * ends at the head it began at: reactions may append meanwhile.
 */
export async function settled(t: TestApp): Promise<void> {
  const pool = t.app.db.pool;
  const headNow = async (): Promise<Position> => {
    const r = await pool.query<{ tx: string; seq: string }>(
      'SELECT tx_id::text AS tx, seq FROM es_events ORDER BY tx_id DESC, seq DESC LIMIT 1',
    );
    const row = r.rows[0];
    return row
      ? { commit: BigInt(row.tx), prepare: BigInt(row.seq) }
      : await t.app.store.headPosition();
  };
  const caughtUp = async (p: (typeof allProjections)[number], head: Position) => {
    const from = await t.app.runner.checkpoint(p.name);
    if (comparePositions(from, head) >= 0) return true;
    // the start of the log is (-1, -1), before every transaction id
    const values: unknown[] = [String(head.commit), String(head.prepare), [...p.handles]];
    if (from.commit >= 0n) values.push(String(from.commit), String(from.prepare));
    const pending = await pool.query(
      `SELECT 1 FROM es_events WHERE (tx_id, seq) <= ($1::text::xid8, $2::bigint)
         AND type = ANY($3::text[])
         ${from.commit >= 0n ? 'AND (tx_id, seq) > ($4::text::xid8, $5::bigint)' : ''} LIMIT 1`,
      values,
    );
    return pending.rows.length === 0;
  };
  for (let head = await headNow(); ; ) {
    // the audit tree (every event) gathers appends for a moment: a test of it waits for it
    for (const p of allProjections.filter((x) => x.handles !== EVERY_EVENT)) {
      const deadline = Date.now() + 20_000;
      while (!(await caughtUp(p, head))) {
        expect(Date.now(), `${p.name} to reach the head`).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const after = await headNow();
    if (after.commit === head.commit && after.prepare === head.prepare) return;
    head = after;
  }
}

/** Polls an import's progress until it is completed. */
export async function importDone(call: Call, path: string, key: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call('GET', path, { key });
    if (r.status === 200 && r.body.status === 'completed') return r.body;
    if (Date.now() > deadline) throw new Error(`import not done: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

export const config = (sku: string, extra: Record<string, unknown> = {}) => ({
  sku,
  baseSKU: sku.split('-')[0],
  skuGroup: 'group',
  name: `Product ${sku}`,
  printMethod: 'digital',
  printPosition: 'front',
  printPositions: ['front', 'back'],
  printColors: 4,
  productColor: 'white',
  supplierPrintMethodName: 'Digital print',
  supplierPrintMethodCode: 'DP',
  supplierPrintAreaCodes: ['FRONT'],
  supplierPrintAreaNames: ['Front'],
  printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 80, heightMm: 50 }],
  published: true,
  ...extra,
});

export async function importCatalog(call: Call, t: TestApp, supplier: string, configs: unknown[]) {
  const r = await call('POST', `/operator/catalog/${supplier}`, {
    key: t.operatorKey,
    body: configs,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const done = await importDone(
    call,
    `/operator/catalog/imports/${r.body.importId}`,
    t.operatorKey,
  );
  await settled(t);
  return done;
}

/**
 * Every event and every read model row, as a fingerprint: equal before and after = nothing changed.
 */
export async function snapshot(t: TestApp): Promise<string> {
  const pool = t.app.db.pool;
  const tables = await pool.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND (tablename LIKE 'rm\\_%' OR tablename IN ('es_events', 'encryption_keys')) ORDER BY 1",
  );
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const r = await pool.query(
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${name} x`,
    );
    parts.push(`${name}:${r.rows[0].n}:${r.rows[0].h}`);
  }
  return parts.join('\n');
}

/**
 * Sends a request that must be refused: checks the status, the problem body, that no
 * key leaks into it, and that no event and no read model row changed.
 */
export async function refused(
  t: TestApp,
  call: Call,
  status: number,
  method: string,
  path: string,
  options: Parameters<Call>[2] = {},
) {
  await settled(t);
  const before = await snapshot(t);
  const r = await call(method, path, options);
  expect(r.status, `${method} ${path} -> ${JSON.stringify(r.body)}`).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body).toMatchObject({
    status,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(JSON.stringify(r.body)).not.toMatch(/ep_(adm|int|ful|psk)_[0-9a-f]{32}_/);
  await settled(t);
  expect(await snapshot(t)).toBe(before);
  return r.body;
}

/**
 * A partner user of a label and an editor token for them (the login issue makes these for real).
 */
export async function editorUser(
  t: TestApp,
  labelId: string,
  userId: string,
  profile?: { firstName?: string; lastName?: string; userName?: string },
): Promise<{ userRef: string; token: string }> {
  const { registerPartnerUser } = await import('../../src/app/partner-users.ts');
  const { issueEditorToken } = await import('../../src/app/editor-token.ts');
  const { userRef } = await registerPartnerUser(t.app.context, labelId, userId, profile, {
    actor: 'test',
  });
  await settled(t);
  return { userRef, token: issueEditorToken(t.editorTokenSecret, labelId, userRef) };
}

/**
 * The result of a workflow started from the event log: it exists once the reactor has
 * read its request, a moment after the request was answered.
 */
export async function workflowResult(
  t: TestApp,
  workflowId: string,
  timeoutMs = 30_000,
  // biome-ignore lint/suspicious/noExplicitAny: workflow results are inspected field by field
): Promise<any> {
  const client = t.app.temporal!.client;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await client.workflow.getHandle(workflowId).result();
    } catch (err) {
      if ((err as Error).name !== 'WorkflowNotFoundError' || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * Logs in to the ops page as a browser would: the login page first (its token and
 * cookie), then the form. Answers the session cookie, ready for a `cookie` header.
 */
export async function opsLogin(url: string, key: string): Promise<string> {
  const form = await fetch(`${url}/ops/login`);
  const loginCookie = form.headers.get('set-cookie')?.split(';')[0] ?? '';
  const token = /name="_login" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const login = await fetch(`${url}/ops/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: loginCookie },
    body: new URLSearchParams({ _login: token, key }).toString(),
    redirect: 'manual',
  });
  expect(login.status).toBe(303);
  expect(login.headers.get('location')).toBe('/ops');
  return login.headers.get('set-cookie')?.split(';')[0] ?? '';
}

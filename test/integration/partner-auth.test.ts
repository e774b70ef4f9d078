import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PartnerSimulator, startPartnerSimulator } from '../../src/partner/simulator.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  importCatalog,
  type Label,
  newLabel,
  refused,
  settled,
} from '../helpers/fixtures.ts';

const TIMEOUT_MS = 1000;

/**
 * The editor's signup, login and forgot password through partner-hosted callbacks,
 * against the partner simulator over real HTTP.
 */
describe('partner callbacks and editor sessions', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let a: Label;
  let b: Label;
  let unconfigured: Label;
  let simA: PartnerSimulator; // label A, production
  let simAStaging: PartnerSimulator; // label A, staging
  let simB: PartnerSimulator; // label B
  const keys = {
    aProd: `cb-a-prod-${randomUUID()}`,
    aStaging: `cb-a-stage-${randomUUID()}`,
    b: `cb-b-${randomUUID()}`,
  };
  const password = `pw-${randomUUID()}`;

  beforeAll(async () => {
    t = await startTestApp({ PARTNER_TIMEOUT_MS: String(TIMEOUT_MS) });
    for (const k of [...Object.values(keys), password]) t.secrets.add(k);
    call = client(t.url);
    simA = await startPartnerSimulator({ apiKey: keys.aProd });
    simAStaging = await startPartnerSimulator({ apiKey: keys.aStaging });
    simB = await startPartnerSimulator({ apiKey: keys.b });
    a = await newLabel(call, t, 'A');
    b = await newLabel(call, t, 'B');
    unconfigured = await newLabel(call, t, 'no callbacks');
    const ca = await call('POST', `/operator/labels/${a.labelId}/callbacks`, {
      key: t.operatorKey,
      body: {
        staging: { url: simAStaging.url, apiKey: keys.aStaging },
        production: { url: `${simA.url}/`, apiKey: keys.aProd },
        environment: 'production',
      },
    });
    expect(ca.status).toBe(200);
    expect(ca.body).toEqual({
      labelId: a.labelId,
      environment: 'production',
      staging: { url: simAStaging.url },
      production: { url: `${simA.url}/` },
    });
    const cb = await call('POST', `/operator/labels/${b.labelId}/callbacks`, {
      key: t.operatorKey,
      body: { production: { url: simB.url, apiKey: keys.b }, environment: 'production' },
    });
    expect(cb.status).toBe(200);
    await importCatalog(call, t, 'supplier-a', [config('MUG-1')]);
  });
  afterAll(async () => {
    await t?.stop(); // fails when a password, callback key or API key reached a log line or an event
    await Promise.all([simA?.stop(), simAStaging?.stop(), simB?.stop()]);
  });

  const post = (labelId: string, what: string, body: unknown) =>
    call('POST', `/editor/${labelId}/${what}`, { body });
  const timed = async <T>(f: () => Promise<T>) => {
    const began = Date.now();
    const value = await f();
    return { value, ms: Date.now() - began };
  };

  it('signs up, logs in and creates a project with the token', async () => {
    const userName = `ada-${randomUUID()}@example.com`;
    const s = await post(a.labelId, 'signup', {
      userName,
      password,
      firstName: 'Ada',
      lastName: 'Lovelace',
      language: 'en',
    });
    expect(s.status).toBe(201);
    expect(s.body.user).toEqual({
      id: expect.stringMatching(/^p-/),
      firstName: 'Ada',
      lastName: 'Lovelace',
      userName,
    });
    expect(s.body.token).toMatch(/^v1\./);
    const l = await post(a.labelId, 'login', { userName, password, language: 'de-CH' });
    expect(l.status).toBe(200);
    expect(l.body.user.id).toBe(s.body.user.id);
    const p = await call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${l.body.token}` },
      body: {
        name: 'Mine',
        sku: 'MUG-1',
        supplier: 'supplier-a',
        design: { areas: [{ printArea: 'FRONT', layers: [] }] },
      },
    });
    expect(p.status).toBe(201);
    expect(p.body.userId).toBe(s.body.user.id);
    // the partner's user is a partner user of the label, its personal data encrypted
    await settled(t);
    const u = await t.app.db.pool.query(
      'SELECT user_name, first_name FROM rm_partner_users WHERE label_id = $1 AND user_id = $2',
      [a.labelId, s.body.user.id],
    );
    expect(u.rows[0]).toEqual({ user_name: userName, first_name: 'Ada' });
    const clear = await t.app.db.pool.query(
      "SELECT count(*)::int AS n FROM es_events WHERE data::text LIKE '%Lovelace%' OR data::text LIKE $1",
      [`%${userName}%`],
    );
    expect(clear.rows[0].n).toBe(0);
  });

  it("answers a wrong password with 401 and the partner's message and code", async () => {
    const r = await post(a.labelId, 'login', {
      userName: 'demo@example.com',
      password: 'wrong',
      language: 'en',
    });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({
      status: 401,
      detail: 'Wrong user name or password.',
      code: 'INVALID_CREDENTIALS',
    });
    expect(r.body.token).toBeUndefined();
  });

  it("keeps the partner's 4xx on signup: an existing user is 409, a weak password 422", async () => {
    const taken = await post(a.labelId, 'signup', {
      userName: 'demo@example.com',
      password,
      language: 'en',
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({
      detail: 'An account with this user name exists already.',
      code: 'USER_EXISTS',
    });
    const weak = await post(a.labelId, 'signup', {
      userName: `w-${randomUUID()}@example.com`,
      password: 'short',
      language: 'en',
    });
    expect(weak.status).toBe(422);
  });

  describe('when the partner fails', () => {
    it('turns a partner 500 into 502 with its message', async () => {
      simA.setMode('fail');
      try {
        const r = await post(a.labelId, 'login', {
          userName: 'demo@example.com',
          password: 'demo-password',
          language: 'en',
        });
        expect(r.status).toBe(502);
        expect(r.body).toMatchObject({
          status: 502,
          detail: 'Internal partner error.',
          code: 'SIM_FAIL',
        });
      } finally {
        simA.setMode('normal');
      }
    });

    it('gives up on a slow partner with 502 at its time-out, not when the partner answers', async () => {
      // the partner answers 20 s late: a 502 well before that came from the time-out
      simA.setMode('slow', TIMEOUT_MS + 20_000);
      try {
        for (const what of ['login', 'signup', 'forgot-password']) {
          const body =
            what === 'forgot-password'
              ? { userName: 'demo@example.com', language: 'en' }
              : { userName: `slow-${randomUUID()}@example.com`, password, language: 'en' };
          const { value: r, ms } = await timed(() => post(a.labelId, what, body));
          expect(r.status).toBe(502);
          expect(r.body.code).toBe('partner_timeout');
          expect(ms).toBeLessThan(TIMEOUT_MS + 10_000);
          expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
        }
      } finally {
        simA.setMode('normal');
      }
    });

    it('never makes a session of 201 with {} , HTML, a redirect or text with NUL', async () => {
      for (const mode of ['empty', 'html', 'redirect', 'nul'] as const) {
        simA.setMode(mode);
        try {
          const userName = `odd-${mode}-${randomUUID()}@example.com`;
          const before = (await t.app.db.pool.query('SELECT count(*)::int AS n FROM es_events'))
            .rows[0].n;
          for (const what of ['login', 'signup']) {
            const r = await post(a.labelId, what, { userName, password, language: 'en' });
            expect(r.status, `${mode} ${what}`).toBe(502);
            expect(r.body.code).toBe('partner_invalid_response');
            expect(r.body.token).toBeUndefined();
          }
          const after = (await t.app.db.pool.query('SELECT count(*)::int AS n FROM es_events'))
            .rows[0].n;
          expect(after).toBe(before); // no user registered
        } finally {
          simA.setMode('normal');
        }
      }
    });

    it('retries forgot-password once when the connection fails, and never signup or login', async () => {
      const down = await startPartnerSimulator({ apiKey: 'x' });
      const url = down.url;
      await down.stop(); // nothing listens there now
      const c = await newLabel(call, t, 'down');
      await call('POST', `/operator/labels/${c.labelId}/callbacks`, {
        key: t.operatorKey,
        body: { production: { url, apiKey: 'down-key' }, environment: 'production' },
      });
      for (const what of ['login', 'signup', 'forgot-password']) {
        const r = await post(c.labelId, what, {
          userName: 'x@example.com',
          ...(what === 'forgot-password' ? {} : { password }),
          language: 'en',
        });
        expect(r.status).toBe(502);
        expect(r.body.code).toBe('partner_unavailable');
      }
      const attempts = t.logs
        .filter((l) => l.includes('partner call failed') && l.includes(url))
        .map((l) => JSON.parse(l).partner);
      expect(
        attempts.map((p: { kind: string; attempt: number }) => `${p.kind}#${p.attempt}`),
      ).toEqual(['login#1', 'signup#1', 'forgot-password#1', 'forgot-password#2']);
    });
  });

  it('passes the success and the unknown-user texts of forgot-password through', async () => {
    const known = await post(a.labelId, 'forgot-password', {
      userName: 'demo@example.com',
      language: 'en',
    });
    expect(known.status).toBe(200);
    expect(known.body).toEqual({
      header: 'Check your inbox',
      body: 'We have sent you a link to choose a new password.',
    });
    const unknown = await post(a.labelId, 'forgot-password', {
      userName: 'nobody@example.com',
      language: 'fr',
    });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({
      header: 'Unknown user',
      body: 'There is no account with this user name.',
    });
  });

  it("sends the label's key for its active environment, and never another label's", async () => {
    const mark = [simA, simAStaging, simB].map((s) => s.requests.length);
    // user names of their own: password resets are limited per user name
    const someone = () => `someone-${randomUUID()}@example.com`;
    await post(a.labelId, 'forgot-password', { userName: someone(), language: 'en' });
    await post(b.labelId, 'forgot-password', { userName: someone(), language: 'en' });
    const switched = await call('POST', `/operator/labels/${a.labelId}/callbacks`, {
      key: t.operatorKey,
      body: {
        staging: { url: simAStaging.url, apiKey: keys.aStaging },
        production: { url: simA.url, apiKey: keys.aProd },
        environment: 'staging',
      },
    });
    expect(switched.status).toBe(200);
    const viaStaging = someone();
    await post(a.labelId, 'forgot-password', { userName: viaStaging, language: 'en' });
    const [newA, newStaging, newB] = [simA, simAStaging, simB].map((s, i) =>
      s.requests.slice(mark[i]),
    ) as [typeof simA.requests, typeof simA.requests, typeof simA.requests];
    expect(newA.map((r) => r.apiKey)).toEqual([keys.aProd]);
    expect(newB.map((r) => r.apiKey)).toEqual([keys.b]);
    expect(newStaging.map((r) => r.apiKey)).toEqual([keys.aStaging]);
    // over the whole run: each simulator only ever saw its own label's key
    expect(new Set(simA.requests.map((r) => r.apiKey))).toEqual(new Set([keys.aProd]));
    expect(new Set(simAStaging.requests.map((r) => r.apiKey))).toEqual(new Set([keys.aStaging]));
    expect(new Set(simB.requests.map((r) => r.apiKey))).toEqual(new Set([keys.b]));
    expect(newStaging[0]!.path).toBe('/forgot-password');
    expect(newStaging[0]!.body).toEqual({ userName: viaStaging, language: 'en' });
    await call('POST', `/operator/labels/${a.labelId}/callbacks`, {
      key: t.operatorKey,
      body: {
        staging: { url: simAStaging.url, apiKey: keys.aStaging },
        production: { url: simA.url, apiKey: keys.aProd },
        environment: 'production',
      },
    });
  });

  it('checks the language tag, and everything else, before calling the partner', async () => {
    const mark = simA.requests.length;
    const bad = [
      ['login', { userName: 'demo@example.com', password }],
      ['login', { userName: 'demo@example.com', password, language: 'english!' }],
      ['login', { userName: 'demo@example.com', password, language: 'e' }],
      ['signup', { userName: 'x@example.com', password, language: 'de_CH' }],
      ['forgot-password', { userName: 'demo@example.com' }],
      ['forgot-password', { userName: 'demo@example.com', language: 12 }],
      ['login', { userName: '', password, language: 'en' }],
      ['login', { userName: 'demo@example.com', language: 'en' }],
      ['signup', { userName: 'x@example.com', password, language: 'en', role: 'admin' }],
    ] as const;
    for (const [what, body] of bad)
      await refused(t, call, 400, 'POST', `/editor/${a.labelId}/${what}`, { body });
    expect(simA.requests.length).toBe(mark);
    await refused(t, call, 404, 'POST', `/editor/${randomUUID()}/login`, {
      body: { userName: 'a', password, language: 'en' },
    });
    await refused(t, call, 400, 'POST', '/editor/not-a-label/login', {
      body: { userName: 'a', password, language: 'en' },
    });
    const none = await refused(t, call, 503, 'POST', `/editor/${unconfigured.labelId}/login`, {
      body: { userName: 'a', password, language: 'en' },
    });
    expect(none.code).toBe('partner_not_configured');
  });

  it('refuses bad callback configurations and never shows the keys', async () => {
    const key = t.operatorKey;
    const path = `/operator/labels/${a.labelId}/callbacks`;
    const prod = { url: simA.url, apiKey: keys.aProd };
    await refused(t, call, 400, 'POST', path, {
      key,
      body: { production: prod, environment: 'staging' },
    });
    await refused(t, call, 400, 'POST', path, {
      key,
      body: {
        production: { url: 'ftp://partner.example', apiKey: 'k' },
        environment: 'production',
      },
    });
    await refused(t, call, 400, 'POST', path, { key, body: { environment: 'production' } });
    await refused(t, call, 400, 'POST', path, {
      key,
      body: { production: { url: simA.url }, environment: 'production' },
    });
    await refused(t, call, 400, 'POST', path, {
      key,
      body: { production: prod, environment: 'live' },
    });
    await refused(t, call, 404, 'POST', `/operator/labels/${randomUUID()}/callbacks`, {
      key,
      body: { production: prod, environment: 'production' },
    });
    await refused(t, call, 403, 'POST', path, {
      key: a.adminApiKey,
      body: { production: prod, environment: 'production' },
    });
    const openapi = JSON.stringify((await call('GET', '/openapi.json')).body);
    expect(openapi).toContain('/editor/{labelId}/login');
    expect(openapi).toContain('/operator/labels/{labelId}/callbacks');
  });

  it('leaks no password, callback key or API key into the log or the events', async () => {
    expect(t.logs.some((l) => l.includes('partner answered'))).toBe(true);
    await t.assertNoLeaks();
  });
});

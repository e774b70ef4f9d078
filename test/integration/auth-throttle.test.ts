import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PartnerSimulator, startPartnerSimulator } from '../../src/partner/simulator.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { newLabel } from '../helpers/fixtures.ts';

/**
 * Signup, login and forgot password limits, counted in PostgreSQL: two app instances on
 * one database, the one trusting X-Forwarded-For (TRUST_PROXY), the other not.
 */
describe('limits on signup, login and forgot password', () => {
  let a: TestApp; // trusts X-Forwarded-For
  let b: TestApp; // does not
  let sim: PartnerSimulator;
  let labelId: string;
  const simKey = `sim-${randomUUID()}`;

  beforeAll(async () => {
    a = await startTestApp({ TRUST_PROXY: 'true' });
    b = await startTestApp(
      {
        DATABASE_URL: a.config.databaseUrl!,
        OPERATOR_API_KEY: a.operatorKey,
        EDITOR_TOKEN_SECRET: a.editorTokenSecret,
      },
      { roles: ['api'] },
    );
    sim = await startPartnerSimulator({ apiKey: simKey });
    a.secrets.add(simKey);
    const call = client(a.url);
    labelId = (await newLabel(call, a, 'Guarded')).labelId;
    const cb = await call('POST', `/operator/labels/${labelId}/callbacks`, {
      key: a.operatorKey,
      body: { production: { url: sim.url, apiKey: simKey }, environment: 'production' },
    });
    expect(cb.status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await sim?.stop();
    await b?.stop();
    await a?.stop();
  });

  const post = (t: TestApp, what: string, body: Record<string, string>, from?: string) =>
    client(t.url)('POST', `/editor/${labelId}/${what}`, {
      body: { language: 'en', ...body },
      headers: from ? { 'x-forwarded-for': from } : {},
    });
  const calls = (userName: string) =>
    sim.requests.filter((r) => r.body.userName === userName).length;

  it('lets at most 5 of 30 concurrent wrong logins for one user reach the partner', async () => {
    const userName = `crowd-${randomUUID()}@example.com`;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        post(a, 'login', { userName, password: 'wrong' }, `10.0.1.${i}`),
      ),
    );
    expect(calls(userName)).toBeLessThanOrEqual(5);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(calls(userName));
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(25);
    const limited = answers.find((r) => r.status === 429)!;
    expect(limited.body.code).toBe('too_many_attempts');
    expect(limited.headers.get('content-type')).toMatch(/problem\+json/);
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(15 * 60);
  });

  it('slows an address with many failures down but never locks out another user’s correct login', async () => {
    const from = '10.0.2.1';
    for (let i = 0; i < 24; i++) {
      const r = await post(
        a,
        'login',
        { userName: `guess-${i}-${randomUUID()}`, password: 'x' },
        from,
      );
      expect(r.status).toBe(401);
    }
    const password = `right-${randomUUID()}`;
    a.secrets.add(password);
    const userName = `rightful-${randomUUID()}@example.com`;
    sim.addUser({ userName, password });
    const began = Date.now();
    const ok = await post(a, 'login', { userName, password }, from);
    expect(ok.status).toBe(200);
    expect(ok.body.token).toEqual(expect.any(String));
    expect(Date.now() - began).toBeGreaterThanOrEqual(2000); // slowed: 5 failures past 20
    // from another address the same user is not slowed
    const elsewhere = Date.now();
    expect((await post(a, 'login', { userName, password }, '10.0.2.2')).status).toBe(200);
    expect(Date.now() - elsewhere).toBeLessThan(2000);
  });

  it('shares the counts between instances', async () => {
    const userName = `shared-${randomUUID()}@example.com`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await post(i % 2 === 0 ? a : b, 'login', { userName, password: 'wrong' })).status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(calls(userName)).toBe(5);
  });

  it('limits signups and password resets per user name and per address', async () => {
    const userName = `signup-${randomUUID()}@example.com`;
    const signups: number[] = [];
    for (let i = 0; i < 4; i++)
      signups.push(
        (await post(a, 'signup', { userName, password: 'long enough password' }, `10.0.3.${i}`))
          .status,
      );
    expect(signups).toEqual([201, 409, 409, 429]);
    const resets: number[] = [];
    for (let i = 0; i < 4; i++)
      resets.push((await post(a, 'forgot-password', { userName }, `10.0.4.${i}`)).status);
    expect(resets).toEqual([200, 200, 200, 429]);
    // one address, many user names: 10 an hour
    const fromOne: number[] = [];
    for (let i = 0; i < 11; i++)
      fromOne.push(
        (await post(a, 'forgot-password', { userName: `many-${i}-${randomUUID()}` }, '10.0.5.1'))
          .status,
      );
    expect(fromOne.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(fromOne[10]).toBe(429);
  });

  it('reads X-Forwarded-For only when TRUST_PROXY says so', async () => {
    // b does not trust it: eleven "addresses" are one, and the eleventh reset is refused
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push(
        (
          await post(
            b,
            'forgot-password',
            { userName: `proxy-${i}-${randomUUID()}` },
            `10.9.0.${i}`,
          )
        ).status,
      );
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

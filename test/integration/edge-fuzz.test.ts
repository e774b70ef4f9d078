import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { editorUser, newIntegration, newLabel, snapshot } from '../helpers/fixtures.ts';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request sent as written: no URL normalisation, no header checks of a client library. */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        method,
        path,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

interface Route {
  method: string;
  path: string;
  params: string[];
  query: string[];
  hasBody: boolean;
}

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('every route, sent what a client must never be able to break it with', () => {
  let t: TestApp;
  let routes: Route[];
  const keys: Record<string, Record<string, string>> = {};
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const call = client(t.url);
    const label = await newLabel(call, t, 'Fuzz');
    const shop = await newIntegration(call, t, label.adminApiKey, true);
    const printshop = await call('POST', '/operator/printshop-keys', {
      key: t.operatorKey,
      body: { name: 'fuzz' },
    });
    const { token } = await editorUser(t, label.labelId, 'fuzzer');
    keys.operator = { 'x-api-key': t.operatorKey };
    keys.admin = { 'x-api-key': label.adminApiKey };
    keys.integration = { 'x-api-key': shop.apiKey };
    keys.fulfillment = { 'x-api-key': label.fulfillmentApiKey };
    keys.printshop = { 'x-api-key': printshop.body.apiKey };
    keys.editor = { authorization: `Bearer ${token}` };
    keys.none = {};
    const doc = (await call('GET', '/openapi.json')).body;
    routes = [];
    for (const [path, ops] of Object.entries<Record<string, Record<string, unknown>>>(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const parameters = (op.parameters ?? []) as { in: string; name: string }[];
        routes.push({
          method: method.toUpperCase(),
          path,
          params: parameters.filter((p) => p.in === 'path').map((p) => p.name),
          query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
          hasBody: op.requestBody !== undefined,
        });
      }
    }
  }, 120_000);
  afterAll(async () => t?.stop());

  const keyFor = (r: Route) => {
    if (r.path.startsWith('/operator')) return keys.operator!;
    if (r.path.startsWith('/api/offering') || r.path.endsWith('/notifyorder'))
      return r.path.startsWith('/v1') ? keys.fulfillment! : keys.integration!;
    if (r.path.startsWith('/api')) return keys.admin!;
    if (r.path.startsWith('/v1/api/printshop')) return keys.printshop!;
    if (r.path.startsWith('/v1/')) return keys.fulfillment!;
    if (r.path.startsWith('/editor/projects') || r.path.startsWith('/editor/cart'))
      return keys.editor!;
    return keys.none!;
  };
  const fill = (r: Route, value: (name: string) => string) =>
    r.path.replace(/\{(\w+)\}/g, (_, name: string) => value(name));
  const normal = (name: string) =>
    name === 'supplier' ? 'supplier-a' : name === 'partnerid' ? '1' : UUID;

  /** The answer is a problem (no 5xx), and says so by its media type. */
  function check(what: string, a: RawAnswer, expected?: number) {
    const where = `${what} -> ${a.status} ${a.body.slice(0, 200)}`;
    if (a.status >= 500) problems.push(where);
    if (expected !== undefined && a.status !== expected)
      problems.push(`expected ${expected}: ${where}`);
    if (a.status >= 400) {
      if (!String(a.headers['content-type']).startsWith('application/problem+json'))
        problems.push(`not problem+json: ${where}`);
      else {
        const p = JSON.parse(a.body);
        if (p.status !== a.status || typeof p.code !== 'string' || typeof p.detail !== 'string')
          problems.push(`not a whole problem: ${where}`);
      }
    }
  }

  it('gives every route problem details and no 5xx, and records nothing', async () => {
    const before = await snapshot(t);
    let sent = 0;
    for (const r of routes) {
      const headers = keyFor(r);
      const send = async (what: string, path: string, expected?: number, body?: string) => {
        sent++;
        check(
          `${r.method} ${r.path}: ${what}`,
          await raw(t.url, r.method, path, headers, body),
          expected,
        );
      };
      const body = r.hasBody ? '{"name":"x"}' : undefined;
      // malformed escapes, in each path parameter and in the query
      for (const bad of ['%FF%FE', '%E0%A4%A', '%', '%zz', '%C0%AF']) {
        for (const p of r.params)
          await send(
            `escape ${bad} in ${p}`,
            fill(r, (n) => (n === p ? bad : normal(n))),
            undefined,
            body,
          );
        await send(
          `escape ${bad} in the query`,
          `${fill(r, normal)}?${r.query[0] ?? 'q'}=${bad}`,
          bad === '%C0%AF' ? undefined : 400,
          body,
        );
      }
      // NUL in each path parameter, in the query and in a body string
      for (const p of r.params)
        await send(
          `NUL in ${p}`,
          fill(r, (n) => (n === p ? 'a%00b' : normal(n))),
          400,
          body,
        );
      await send('NUL in the query', `${fill(r, normal)}?${r.query[0] ?? 'q'}=a%00b`, 400, body);
      if (r.hasBody) await send('NUL in the body', fill(r, normal), 400, '{"name":"a\\u0000b"}');
      // over-long ids: past each schema's limit (400), past the router's (414)
      for (const p of r.params) {
        await send(
          `${p} of 300 characters`,
          fill(r, (n) => (n === p ? 'x'.repeat(300) : normal(n))),
          400,
          body,
        );
        await send(
          `${p} of 3000 characters`,
          fill(r, (n) => (n === p ? 'x'.repeat(3000) : normal(n))),
          414,
          body,
        );
      }
      // headers over Node's 16 KiB
      sent++;
      check(
        `${r.method} ${r.path}: 20 KiB header`,
        await raw(t.url, r.method, fill(r, normal), { ...headers, 'x-fill': 'a'.repeat(20_000) }),
        431,
      );
      // methods the path does not take
      for (const m of ['TRACE', 'PATCH', 'OPTIONS', 'DELETE', 'PUT']) {
        if (routes.some((x) => x.path === r.path && x.method === m)) continue;
        sent++;
        const a = await raw(t.url, m, fill(r, normal), headers);
        check(`${m} ${r.path}`, a, 405);
        const allow = String(a.headers.allow ?? '');
        if (!allow.split(', ').includes(r.method))
          problems.push(`${m} ${r.path}: Allow "${allow}"`);
      }
    }
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThan(500);
    expect(await snapshot(t)).toBe(before);
  }, 300_000);

  it('answers JSON nested 100,000 deep with a 4xx problem on every body route, with every key and none, and records nothing', async () => {
    const before = await snapshot(t);
    const levels = 100_000;
    const bodies = {
      arrays: `${'['.repeat(levels)}${']'.repeat(levels)}`,
      objects: `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`,
    };
    // the ops login takes JSON too (it is not in the API's document, being a site's form)
    const targets = [
      ...routes.filter((r) => r.hasBody),
      { method: 'POST', path: '/ops/login', params: [], query: [], hasBody: true },
    ];
    expect(targets.length).toBeGreaterThan(30);
    let sent = 0;
    for (const r of targets)
      for (const [kind, headers] of Object.entries(keys))
        for (const [shape, body] of Object.entries(bodies)) {
          const a = await raw(t.url, r.method, fill(r, normal), headers, body);
          sent++;
          const where = `${r.method} ${r.path} with ${kind} key, ${shape}: ${a.status} ${a.body.slice(0, 200)}`;
          if (a.status < 400 || a.status >= 500) problems.push(where);
          check(where, a);
        }
    expect(problems).toEqual([]);
    expect(sent).toBe(targets.length * Object.keys(keys).length * 2);
    // and with the editor's key on a route that parses the body: the depth is named
    const deep = await raw(t.url, 'POST', '/editor/projects', keys.editor!, bodies.arrays);
    expect(deep.status).toBe(400);
    expect(JSON.parse(deep.body)).toMatchObject({ code: 'too_deep' });
    expect(await snapshot(t)).toBe(before);
  }, 300_000);
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/shop-integration/events.ts';
import { mayBeCharged } from '../../src/http/door.ts';
import { openApiDocument } from '../../src/http/openapi/build.ts';

type Json = Record<string, unknown>;
const root = path.resolve(import.meta.dirname, '../..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every operation: method, path, the operation object. */
function operations(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ method: method.toUpperCase(), path: p, op: op as Json })),
  );
}

/** Every schema object in a value, with where it is. */
function* schemas(value: unknown, at: string): Generator<[string, Json]> {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) yield* schemas(v, `${at}/${i}`);
  } else if (value && typeof value === 'object') {
    const o = value as Json;
    if (o.properties && typeof o.properties === 'object') yield [at, o];
    for (const [k, v] of Object.entries(o)) yield* schemas(v, `${at}/${k}`);
  }
}

/**
 * The OpenAPI document as a client generator reads it (issue 22): stable operation ids,
 * named shared schemas, declared headers, typed timestamps, a webhooks section; and
 * docs/api.md, which a reader has instead, agreeing with it on every status.
 */
describe('the OpenAPI document', () => {
  let doc: Json;
  beforeAll(async () => {
    doc = await openApiDocument();
  }, 60_000);

  it('gives every operation a unique camelCase operationId and a tag', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(70);
    const ids = ops.map(({ method, path: p, op }) => {
      expect(op.operationId, `${method} ${p}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect((op.tags as string[] | undefined)?.length, `${method} ${p}`).toBeGreaterThan(0);
      return op.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('types every time in an answer as date-time', () => {
    const untyped: string[] = [];
    for (const [at, s] of schemas([doc.components, doc.paths], '')) {
      for (const [name, p] of Object.entries(s.properties as Record<string, Json>)) {
        if (!/At$|^at$|^timestamp$/.test(name)) continue;
        const variants = [p, ...((p.anyOf as Json[] | undefined) ?? [])];
        if (!variants.some((v) => v.format === 'date-time' || v.$ref))
          untyped.push(`${at}.${name}`);
      }
    }
    expect(untyped).toEqual([]);
  });

  it('declares Retry-After on every 429 and 503, x-request-id on every answer', () => {
    for (const { method, path: p, op } of operations(doc)) {
      for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) {
        const headers = Object.keys((r.headers ?? {}) as Json);
        expect(headers, `${method} ${p} ${status}`).toContain('x-request-id');
        if (status === '429' || status === '503')
          expect(headers, `${method} ${p} ${status}`).toContain('retry-after');
      }
    }
    const printFile = (doc.paths as Record<string, Record<string, Json>>)[
      '/api/orderitem/{id}/printfile'
    ]!.get!.responses as Record<string, Json>;
    expect(Object.keys(printFile['302']!.headers as Json)).toContain('location');
    expect(printFile['302']!.content).toBeUndefined();
    expect(Object.keys(printFile['200']!.content as Json)).toEqual(['application/pdf']);
  });

  it('bounds its integers by what the service takes, not by JavaScript', () => {
    expect(JSON.stringify(doc)).not.toContain('9007199254740991');
  });

  it('names its shared models, each once: no object schema is written out twice', () => {
    const names = Object.keys((doc.components as Json).schemas as Json);
    for (const n of [
      'Problem',
      'Order',
      'OrderItem',
      'Design',
      'Layer',
      'ImageLayer',
      'TextLayer',
      'Webhook',
      'ShopIntegration',
      'ProductConfiguration',
      'OrderMessage',
    ])
      expect(names).toContain(n);
    const layer = ((doc.components as Json).schemas as Record<string, Json>).Layer!;
    expect(layer.discriminator).toMatchObject({ propertyName: 'type' });
    const inline = new Map<string, string[]>();
    for (const [at, s] of schemas(doc.paths, 'paths')) {
      const key = JSON.stringify(s);
      inline.set(key, [...(inline.get(key) ?? []), at]);
    }
    const twice = [...inline.values()].filter((places) => places.length > 1);
    expect(twice).toEqual([]);
  });

  it('names every order message type in its webhooks section, with the signature headers', () => {
    const webhooks = doc.webhooks as Record<string, { post: Json }>;
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const [type, { post }] of Object.entries(webhooks)) {
      const headers = (post.parameters as { name: string; in: string }[]).map((p) => p.name);
      expect(headers, type).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      const ref = (
        (post.requestBody as Json).content as Record<string, { schema: { $ref: string } }>
      )['application/json']!.schema.$ref;
      const name = ref.split('/').at(-1)!;
      expect(((doc.components as Json).schemas as Json)[name], type).toBeDefined();
    }
  });

  it('has docs/api.md say the same statuses as the document, route by route', () => {
    const text = readFileSync(path.join(root, 'docs/api.md'), 'utf8');
    const table = text.slice(text.indexOf('## Endpoints'));
    const documented = new Map<string, Set<number>>();
    for (const line of table.split('\n')) {
      const cells = line.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, '').trim());
      if (cells.length < 5 || !/^[A-Z, ]+$/.test(cells[0]!) || cells[0] === 'method') continue;
      const [methods, paths, , success, errors] = cells as [string, string, string, string, string];
      const statuses = new Set<number>();
      for (const m of success.matchAll(/(?:^|or )([1-5]\d\d)\b/g)) statuses.add(Number(m[1]));
      for (const item of errors.split(', ')) {
        const m = /^([1-5]\d\d)\b/.exec(item.trim());
        if (m) statuses.add(Number(m[1]));
      }
      for (const method of methods.split(', '))
        for (const p of paths.split(', '))
          documented.set(`${method} ${p.replace(/\?.*$/, '')}`, statuses);
    }
    const differences: string[] = [];
    for (const { method, path: p, op } of operations(doc)) {
      const declared = new Set(Object.keys(op.responses as Json).map(Number));
      const inDocs = documented.get(`${method} ${p}`);
      if (!inDocs) {
        differences.push(`${method} ${p}: not in docs/api.md`);
        continue;
      }
      // what every route may answer is said once above the table
      const expected = new Set([...inDocs, 400]);
      if (p !== '/livez') expected.add(503);
      if (p.includes('{')) expected.add(414);
      if (mayBeCharged(p, op.security as unknown[] | undefined)) expected.add(429);
      const same = expected.size === declared.size && [...expected].every((s) => declared.has(s));
      if (!same)
        differences.push(
          `${method} ${p}: docs ${[...expected].sort().join(',')} / OpenAPI ${[...declared].sort().join(',')}`,
        );
    }
    expect(differences).toEqual([]);
    // and nothing of another document: no numbered sections of a description the reader lacks
    expect(text).not.toMatch(/\b[0-9]\.[0-9] (record|exactly|\+ supplier|needs|message|body)\b/);
  });
});

import { isDeepStrictEqual } from 'node:util';
import { addExamples } from './examples.ts';
import { OPERATION_IDS } from './operation-ids.ts';

type Json = Record<string, unknown>;

/**
 * The response headers the service sends, declared once as components and referred to
 * by the answers that carry them.
 */
export const HEADERS = {
  'x-request-id': {
    description:
      "the request's id: the client's own x-request-id when it is a plain token (1-128 of A-Za-z0-9._:-), else a new UUID; events the request records carry it as their correlation id",
    schema: { type: 'string', maxLength: 128 },
  },
  'retry-after': {
    description: 'seconds to wait before trying again',
    schema: { type: 'integer', minimum: 0, maximum: 86400 },
  },
  'x-total-records': {
    description: 'how many records the list holds (as far as it can be paged)',
    schema: { type: 'integer', minimum: 0, maximum: 2147483647 },
  },
  'x-pagination-next': {
    description: 'the path and query of the next page, when there is one',
    schema: { type: 'string' },
  },
  'x-pagination-previous': {
    description: 'the path and query of the page before, when there is one',
    schema: { type: 'string' },
  },
  location: {
    description: 'where the answer is: the signed download link, or the progress to poll',
    schema: { type: 'string', format: 'uri-reference' },
  },
  etag: {
    description:
      "the answer's version, in quotes: a file's sha256, or a digest of a JSON answer (for If-None-Match)",
    schema: { type: 'string' },
  },
  'repr-digest': {
    description: "the file's sha256 (RFC 9530): sha-256=:<base64>:",
    schema: { type: 'string' },
  },
  'content-disposition': {
    description: 'inline, with the file name',
    schema: { type: 'string' },
  },
  'preference-applied': {
    description: 'wait=N: the wait the request asked for (Prefer), as the service applied it',
    schema: { type: 'string' },
  },
  'cache-control': {
    description: 'how long the answer may be kept',
    schema: { type: 'string' },
  },
} as const satisfies Record<string, { description: string; schema: Json }>;

export type HeaderName = keyof typeof HEADERS;

/** A route's response headers, by status, for its OpenAPI entry (`x-response-headers`). */
export const responseHeaders = (byStatus: Record<number, HeaderName[]>) => ({
  'x-response-headers': byStatus,
});

const componentName = (header: string) =>
  header
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
const headerRef = (header: string) => ({ $ref: `#/components/headers/${componentName(header)}` });

/** Every `$ref` to a component schema in a value, by name. */
function refsIn(value: unknown, out = new Set<string>()): Set<string> {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string' && x.startsWith('#/components/schemas/'))
          out.add(x.slice('#/components/schemas/'.length));
        else stack.push(x);
      }
    }
  }
  return out;
}

/** Replaces refs to `from` with refs to `to` everywhere in a value. */
function renameRefs(value: unknown, from: string, to: string): void {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === 'object') {
      const o = v as Json;
      if (o.$ref === `#/components/schemas/${from}`) o.$ref = `#/components/schemas/${to}`;
      for (const x of Object.values(o)) if (x && typeof x === 'object') stack.push(x);
    }
  }
}

/**
 * The component schemas as clients need them: an input variant (`XInput`) equal to its
 * output one is the same model, so one name serves both; a schema nothing refers to is
 * left out.
 */
function tidySchemas(doc: Json): void {
  const components = doc.components as Json;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;
  for (const name of Object.keys(schemas)) {
    if (!name.endsWith('Input')) continue;
    const output = name.slice(0, -'Input'.length);
    if (schemas[output] && isDeepStrictEqual(schemas[name], schemas[output])) {
      delete schemas[name];
      renameRefs(doc, name, output);
    }
  }
  // what the paths and webhooks refer to, and what that refers to in turn
  const used = refsIn([doc.paths, doc.webhooks]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const name of [...used]) {
      for (const r of refsIn(schemas[name])) {
        if (!used.has(r)) {
          used.add(r);
          grew = true;
        }
      }
    }
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  // a model only ever sent keeps its own name, without the suffix of an input variant
  for (const name of Object.keys(schemas)) {
    const plain = name.slice(0, -'Input'.length);
    if (name.endsWith('Input') && !schemas[plain]) {
      schemas[plain] = schemas[name]!;
      delete schemas[name];
      renameRefs(doc, name, plain);
    }
  }
}

/**
 * The document as the service publishes it: every operation's id from the table, the
 * headers each answer carries (x-request-id on all, Retry-After on every 429 and 503,
 * and what a route declares in `x-response-headers`), and component schemas without
 * duplicates.
 */
export function finishDocument<D extends object>(document: D, extra: { webhooks?: Json } = {}): D {
  const doc = structuredClone(document) as unknown as Json;
  doc.components ??= {};
  const components = doc.components as Json;
  components.headers = Object.fromEntries(
    Object.entries(HEADERS).map(([name, h]) => [componentName(name), h]),
  );
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item) as [string, Json][]) {
      const id = OPERATION_IDS[`${method.toUpperCase()} ${path}`];
      if (id) op.operationId = id;
      const declared = (op['x-response-headers'] ?? {}) as Record<string, HeaderName[]>;
      delete op['x-response-headers'];
      for (const [status, response] of Object.entries(
        (op.responses ?? {}) as Record<string, Json>,
      )) {
        const names: string[] = ['x-request-id', ...(declared[status] ?? [])];
        if (status === '429' || status === '503') names.push('retry-after');
        response.headers = Object.fromEntries(names.map((n) => [n, headerRef(n)]));
      }
    }
  }
  if (extra.webhooks) doc.webhooks = extra.webhooks;
  tidySchemas(doc);
  optionalBodies(doc);
  addExamples(doc);
  return doc as unknown as D;
}

/**
 * A body the route also takes as none (its schema is nullish: a pause, a cancel) is not
 * required: the generator writes every body as required, which would document a request
 * without one as invalid while the service takes it.
 */
function optionalBodies(doc: Json): void {
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const resolved = (schema: Json | undefined): Json | undefined => {
    const ref = schema?.$ref;
    return typeof ref === 'string' ? schemas[ref.split('/').at(-1)!] : schema;
  };
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, Json>>))
    for (const op of Object.values(item)) {
      const body = op.requestBody as Json | undefined;
      const content = Object.values((body?.content ?? {}) as Record<string, Json>);
      const takesNone = content.some((c) =>
        ((resolved(c.schema as Json | undefined)?.anyOf ?? []) as Json[]).some(
          (s) => s.type === 'null',
        ),
      );
      if (body && takesNone) body.required = false;
    }
}

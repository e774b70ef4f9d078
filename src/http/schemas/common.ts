import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import { mayBeCharged } from '../door.ts';
import { problemSchema, TITLES } from '../problem.ts';

export const idParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) }).strict();

/** A moment in an answer: ISO 8601 in UTC, to the millisecond (2026-11-24T14:45:59.820Z). */
export const instant = z.iso.datetime();
/** A count in an answer (PostgreSQL's integers). */
export const count = z.number().int().min(0).max(2_147_483_647);
/** A size in bytes in an answer. */
/** A size in bytes in an answer (a print file is far below a terabyte). */
export const byteSize = z.number().int().min(0).max(1_000_000_000_000);
/** A sha256 in hex. */
export const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

export const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048);

/** An error answer as the OpenAPI document shows it: problem details, their media type. */
export const problemResponse = (status: number) => ({
  description: TITLES[status] ?? 'Error',
  content: { 'application/problem+json': { schema: problemSchema } },
});

/** The problem answers a route can give, for its OpenAPI entry. */
export function problems(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, problemResponse(s)]));
}

/**
 * onRoute hook: the answers any route can give, whether it names them or not: 400 (a
 * NUL character, a lone surrogate or a malformed value anywhere in the request), 414 (a
 * path parameter past the router's limit), 503 (the database or event store down).
 */
export function addCommonProblems(route: RouteOptions): void {
  const schema = (route.schema ?? {}) as { response?: Record<string, unknown>; hide?: boolean };
  if (schema.hide) return;
  const response = { ...(schema.response ?? {}) };
  const add = (status: number) => {
    if (!(status in response)) response[status] = problemResponse(status);
  };
  add(400);
  if (route.url.includes(':')) add(414);
  if (!['/livez', '/healthz'].includes(route.url)) add(503);
  // a label's key or session: the door may refuse it past the label's share
  if (mayBeCharged(route.url, (schema as { security?: unknown[] }).security)) add(429);
  route.schema = { ...schema, response };
}

export const apiKeySecurity = [{ apiKey: [] }];

/** A conditional read's request headers: the version the client has, and its wait for another. */
export const conditionalHeaders = z.looseObject({
  'if-none-match': z
    .string()
    .max(1024)
    .optional()
    .describe('the ETag of the answer the client has: 304 while the answer is still that one'),
  prefer: z
    .string()
    .max(1024)
    .optional()
    .describe(
      'wait=N (RFC 7240, N seconds, at most 30), with If-None-Match: the answer comes when it changes, or as 304 once N seconds passed; other preferences are ignored',
    ),
});

/** The answer to a conditional read whose answer did not change: no body. */
export const notModified = z
  .null()
  .describe(
    'Not Modified: the answer is still the version If-None-Match names (at the end of the wait, when one was asked for)',
  );

/**
 * A supplier's name, one of this installation's (SUPPLIERS). Checked when the request is
 * taken, not written into the OpenAPI document as an enum: a client generated from one
 * installation's document works with every other.
 */
export const supplierOf = (suppliers: string[]) =>
  z
    .string()
    .min(1)
    .max(100)
    .refine((s) => suppliers.includes(s), {
      message: `supplier must be one of: ${suppliers.join(', ')}`,
    })
    .describe('a supplier of this installation (GET /operator/suppliers lists them)');

/** An Idempotency-Key header: `description` says what the same key again answers. */
export const idempotencyHeader = (description: string) =>
  z.object({
    'idempotency-key': z.string().min(1).max(200).optional().describe(description),
  });

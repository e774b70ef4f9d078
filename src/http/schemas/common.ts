import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import { problemSchema, TITLES } from '../problem.ts';

export const idParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) }).strict();

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
  route.schema = { ...schema, response };
}

export const apiKeySecurity = [{ apiKey: [] }];

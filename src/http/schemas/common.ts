import { z } from 'zod';
import { problemSchema } from '../problem.ts';

export const idParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) }).strict();

export const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048);

/** The problem answers a route can give, for its OpenAPI entry. */
export function problems(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, problemSchema]));
}

export const apiKeySecurity = [{ apiKey: [] }];

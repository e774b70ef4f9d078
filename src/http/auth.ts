import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Principal, PrincipalKind } from '../app/auth.ts';
import { HttpProblem } from './problem.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook: a valid X-Api-Key of one of these kinds (401 / 403 otherwise) */
    requireKey(...kinds: PrincipalKind[]): onRequestAsyncHookHandler;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export type KeyResolver = (presented: string) => Promise<Principal | undefined>;

export function principalOf<K extends PrincipalKind>(
  request: FastifyRequest,
  kind: K,
): Extract<Principal, { kind: K }> {
  const p = request.principal;
  if (!p || p.kind !== kind) throw new Error(`route expects a ${kind} principal`);
  return p as Extract<Principal, { kind: K }>;
}

/** X-Api-Key authentication as a decorator; each API group's plugin adds the hook it needs. */
export const authPlugin = fp<{ resolve: KeyResolver }>(async (app: FastifyInstance, opts) => {
  app.decorateRequest('principal', null);
  app.decorate('requireKey', (...kinds: PrincipalKind[]): onRequestAsyncHookHandler => {
    return async (request) => {
      const header = request.headers['x-api-key'];
      const presented = Array.isArray(header) ? header[0] : header;
      if (!presented)
        throw new HttpProblem(401, 'missing_api_key', 'send your API key in the X-Api-Key header');
      const principal = presented.length <= 200 ? await opts.resolve(presented) : undefined;
      if (!principal) throw new HttpProblem(401, 'unknown_api_key', 'the API key is not valid');
      if (!kinds.includes(principal.kind)) {
        throw new HttpProblem(403, 'wrong_key_kind', 'this API key does not open this endpoint');
      }
      request.principal = principal;
    };
  });
});

import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Principal, PrincipalKind } from '../app/auth.ts';
import type { EventMetadata } from '../eventstore/port.ts';
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

/**
 * Who made a request, for the events it records: the actor (the key's kind and owner,
 * or the editor's user), the request id as correlation id, and the label when there is
 * one.
 */
export function metadataOf(request: FastifyRequest): EventMetadata {
  const correlationId = request.id;
  const session = request.editorSession;
  if (session) return { correlationId, actor: `user:${session.userRef}`, labelId: session.labelId };
  const p = request.principal;
  if (!p) return { correlationId, actor: 'editor' }; // signup, login: no one yet
  switch (p.kind) {
    case 'operator':
      return { correlationId, actor: 'operator' };
    case 'admin':
      return { correlationId, actor: `admin:${p.labelId}`, labelId: p.labelId };
    case 'integration':
      return { correlationId, actor: `integration:${p.integrationId}`, labelId: p.labelId };
    case 'fulfillment':
      return {
        correlationId,
        actor: p.facilityId ? `facility:${p.facilityId}` : `fulfillment:${p.labelId}`,
        labelId: p.labelId,
      };
    case 'printshop':
      return { correlationId, actor: `printshop:${p.keyId}` };
  }
}

/** The label of the key a request came with (one of several kinds a route takes); '' for none. */
export function labelIdOf(request: FastifyRequest): string {
  const p = request.principal;
  return p && 'labelId' in p ? p.labelId : '';
}

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

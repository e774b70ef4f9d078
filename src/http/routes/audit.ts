import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  auditPublicKeys,
  eventInclusion,
  orderAuditBundle,
  treeConsistency,
  treeHead,
} from '../../app/audit.ts';
import { labelIdOf } from '../auth.ts';
import type { HttpDeps } from '../deps.ts';
import { HttpProblem } from '../problem.ts';
import {
  auditBundleSchema,
  consistencyQuery,
  consistencySchema,
  inclusionQuery,
  inclusionSchema,
  publicKeysSchema,
  treeHeadSchema,
} from '../schemas/audit.ts';
import { apiKeySecurity, problems } from '../schemas/common.ts';
import { orderActionParams } from '../schemas/order-list.ts';

const tags = ['Audit'];

/**
 * The audit log (/api/audit, and an order's bundle): any key of a label, or the
 * operator's. A label's key finds its own events only.
 */
export const auditRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireKey('admin', 'integration', 'fulfillment', 'operator'));
  /** the label a key belongs to; undefined for the operator (every label) */
  const scopeOf = (request: Parameters<typeof labelIdOf>[0]) =>
    request.principal?.kind === 'operator' ? undefined : labelIdOf(request);

  app.get(
    '/audit/tree-head',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The latest signed head of the audit log's Merkle tree (RFC 9162)",
        response: { 200: treeHeadSchema, ...problems(401, 403) },
      },
    },
    async () => treeHead(deps.app),
  );

  app.get(
    '/audit/public-keys',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Every key that signs or signed tree heads (Ed25519)',
        response: { 200: publicKeysSchema, ...problems(401, 403) },
      },
    },
    async () => ({ keys: await auditPublicKeys(deps.app) }),
  );

  app.get(
    '/audit/inclusion',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "An event's inclusion proof in the tree of treeSize leaves (the latest signed head's when absent)",
        querystring: inclusionQuery,
        response: { 200: inclusionSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) =>
      eventInclusion(deps.app, scopeOf(request), request.query.eventId, request.query.treeSize),
  );

  app.get(
    '/audit/consistency',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'The consistency proof from the tree of from leaves to the tree of to',
        querystring: consistencyQuery,
        response: { 200: consistencySchema, ...problems(400, 401, 403) },
      },
    },
    async (request) => treeConsistency(deps.app, request.query.from, request.query.to),
  );

  app.get(
    '/orders/:orderId/audit-bundle',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "An order's evidence: its events as stored, their leaves and inclusion proofs, and the signed head they prove against (check it offline with scripts/verify-audit.mjs)",
        params: orderActionParams,
        response: { 200: auditBundleSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const labelId = scopeOf(request);
      // an order id is the shop's, within its label: the operator's key names no label
      if (labelId === undefined)
        throw new HttpProblem(
          403,
          'wrong_key_kind',
          "an order's bundle is asked for with a key of its label",
        );
      return orderAuditBundle(deps.app, labelId, request.params.orderId);
    },
  );
};

import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  approvalPolicy,
  decideByApi,
  proofPage,
  setApprovalPolicy,
} from '../../../app/approvals.ts';
import { reviseItem } from '../../../app/revisions.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { requireEditorSession } from '../../editor-auth.ts';
import { sendImage } from '../../image-reply.ts';
import {
  approvalPolicySchema,
  decisionAnswer,
  decisionBody,
  proofPageImage,
  revisionAnswer,
  revisionBody,
} from '../../schemas/approval.ts';
import { apiKeySecurity, problems } from '../../schemas/common.ts';

const tags = ['Administrator API'];
const itemParams = z.object({ orderItemId: z.uuid() }).strict();

/** GET and PUT /api/approval-policy, and the proof pages: the label's admin key. */
export const approvalPolicyRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const labelOf = (request: Parameters<typeof metadataOf>[0]) =>
    principalOf(request, 'admin').labelId;
  app.get(
    '/approval-policy',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The label's approval policy: which sales wait for their proofs to be approved",
        response: { 200: approvalPolicySchema, ...problems(401, 403) },
      },
    },
    async (request) => approvalPolicy(deps.app, labelOf(request)),
  );
  app.put(
    '/approval-policy',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "Sets the label's approval policy for the sales that come from now on (a sale may override it with `approval.required`)",
        body: approvalPolicySchema,
        response: { 200: approvalPolicySchema, ...problems(400, 401, 403, 415) },
      },
    },
    async (request) =>
      setApprovalPolicy(
        deps.app,
        labelOf(request),
        { ...request.body, skus: request.body.skus ?? [] },
        metadataOf(request),
      ),
  );
  app.get(
    '/orderitem/:orderItemId/proofs/:version/pages/:page',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "A page of an item's proof (PNG), as its approvers see it",
        params: itemParams.extend({
          version: z.coerce.number().int().min(1).max(100_000),
          page: z.coerce.number().int().min(1).max(10_000),
        }),
        response: { 200: proofPageImage, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { orderItemId, version, page } = request.params;
      const png = await proofPage(deps.app, labelOf(request), orderItemId, version, page);
      return sendImage(reply, 'image/png', png);
    },
  );
};

/**
 * POST /api/orderitems/{id}/approval, a decision on an item's proof, by the shop or the
 * admin; POST /api/orderitems/{id}/revisions, the item takes its project's design, by the
 * shop, the admin or the project's owner in the editor.
 */
export const approvalDecisionRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const shopOrAdmin = app.requireKey('admin', 'integration');
  const editor = requireEditorSession(deps);
  const labelOf = (request: FastifyRequest) => {
    const p = request.principal;
    return p && 'labelId' in p ? p.labelId : (request.editorSession?.labelId ?? '');
  };
  app.post(
    '/orderitems/:orderItemId/approval',
    {
      onRequest: shopOrAdmin,
      schema: {
        tags: ['Administrator API', 'Integrator API'],
        security: apiKeySecurity,
        summary:
          "Approves an item's latest proof, or sends it back for changes, for one of its approvers (the shop's, unless onBehalfOf names another)",
        params: itemParams,
        body: decisionBody,
        response: { 200: decisionAnswer, ...problems(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) =>
      decideByApi(
        deps.app,
        labelOf(request),
        request.params.orderItemId,
        request.body,
        metadataOf(request),
      ),
  );
  app.post(
    '/orderitems/:orderItemId/revisions',
    {
      // an editor token when one is sent without a key, else the shop's or admin's key
      onRequest: (request, reply) =>
        request.headers.authorization && !request.headers['x-api-key']
          ? editor(request)
          : shopOrAdmin.call(app, request, reply),
      schema: {
        tags: ['Administrator API', 'Integrator API', 'Editor API'],
        security: [...apiKeySecurity, { editorToken: [] }],
        summary:
          "The item takes its project's design as it is now, while no item of its order is batched or printed: a new print file, and a new proof where approval is needed",
        params: itemParams,
        body: revisionBody,
        response: { 202: revisionAnswer, ...problems(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      const answer = await reviseItem(
        deps.app,
        { labelId: labelOf(request), userRef: request.editorSession?.userRef },
        request.params.orderItemId,
        request.body.projectId,
        metadataOf(request),
      );
      return reply.code(202).send(answer);
    },
  );
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { proofLinkMaker } from '../../app/proof-links.ts';
import { eventFeed } from '../../app/webhooks.ts';
import { orderMessageSchema } from '../../webhooks/message-schemas.ts';
import { withProofLinks } from '../../webhooks/messages.ts';
import { principalOf } from '../auth.ts';
import type { HttpDeps } from '../deps.ts';
import { apiKeySecurity, problems } from '../schemas/common.ts';

/**
 * The pull feed: what the webhooks push, in log order, for a shop that was away longer
 * than the retries last. An admin key reads the label's; an integration key its own
 * orders'.
 */
export const eventFeedRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireKey('admin', 'integration'));
  app.get(
    '/events',
    {
      schema: {
        tags: ['Administrator API', 'Shop integrator API'],
        security: apiKeySecurity,
        summary:
          'Order messages after a cursor, oldest first (the webhook bodies, with their webhook-id as id)',
        querystring: z
          .object({
            after: z.string().max(60).optional(),
            limit: z.coerce.number().int().min(1).max(1000).default(100),
          })
          .strict(),
        response: {
          200: z
            .object({
              events: z.array(orderMessageSchema),
              next: z.string().nullable().meta({ description: 'the cursor to ask after next' }),
            })
            .meta({ id: 'OrderMessagePage' }),
          ...problems(400, 401, 403),
        },
      },
    },
    async (request) => {
      const p = request.principal;
      const scope =
        p?.kind === 'integration'
          ? { labelId: p.labelId, integrationId: p.integrationId }
          : { labelId: principalOf(request, 'admin').labelId };
      const page = await eventFeed(deps.app, scope, request.query.after, request.query.limit);
      // a proof's messages carry each approver's link, made now (never stored)
      const links = proofLinkMaker(deps.config.publicBaseUrl, deps.config.editorTokenSecret);
      return {
        ...page,
        events: page.events.map((m) => withProofLinks(m, scope.labelId, links)),
      };
    },
  );
};

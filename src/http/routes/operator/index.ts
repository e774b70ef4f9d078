import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createLabel } from '../../../app/labels.ts';
import { changeShopIntegrationPermissions } from '../../../app/shop-integrations.ts';
import { permissionSchema } from '../../../domain/shop-integration/events.ts';
import { type HttpDeps, readYourWrite } from '../../deps.ts';
import { apiKeySecurity, idParams, problems } from '../../schemas/common.ts';

const tags = ['Operator API'];
const operator = { actor: 'operator' };

/** Operator API (/operator): the operator key from configuration. */
export const operatorApi: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireKey('operator'));

  app.post(
    '/labels',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Create a label with its admin and fulfillment keys',
        body: z
          .object({
            name: z.string().trim().min(1).max(200),
            partnerId: z.number().int().min(1).max(2_147_483_647).optional(),
          })
          .strict()
          .meta({ example: { name: 'Acme Print', partnerId: 42 } }),
        response: {
          201: z.object({
            labelId: z.uuid(),
            partnerId: z.number().int(),
            adminApiKey: z.string(),
            fulfillmentApiKey: z.string(),
          }),
          ...problems(400, 401, 403, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const { position, ...created } = await createLabel(deps.store, deps.pool, request.body, {
        ...operator,
        correlationId: request.id,
      });
      await readYourWrite(deps, 'labels', position);
      return reply.status(201).send(created);
    },
  );

  app.put(
    '/shop-integration/:id/permissions',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Set the permissions of a shop integration',
        params: idParams,
        body: z.object({ permissions: z.array(permissionSchema).max(10) }).strict(),
        response: {
          200: z.object({ id: z.uuid(), permissions: z.array(permissionSchema) }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const r = await changeShopIntegrationPermissions(
        deps.store,
        request.params.id,
        request.body.permissions,
        {
          ...operator,
          correlationId: request.id,
        },
      );
      await readYourWrite(deps, 'shop-integrations', r.appended?.position);
      return { id: request.params.id, permissions: r.permissions };
    },
  );

  app.get(
    '/projections',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Each projection: checkpoint, events behind, whether this process runs it',
        response: {
          200: z.array(
            z.object({
              name: z.string(),
              checkpoint: z.object({ commit: z.string(), prepare: z.string() }),
              behind: z.number().int(),
              running: z.boolean(),
            }),
          ),
          ...problems(401, 403),
        },
      },
    },
    async () => deps.runner.status(),
  );
};

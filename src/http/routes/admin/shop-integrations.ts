import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createShopIntegration,
  getShopIntegration,
  listShopIntegrations,
  rotateShopIntegrationKey,
  updateShopIntegration,
} from '../../../app/shop-integrations.ts';
import { principalOf } from '../../auth.ts';
import { type HttpDeps, readYourWrite } from '../../deps.ts';
import { HttpProblem } from '../../problem.ts';
import { apiKeySecurity, idParams, problems } from '../../schemas/common.ts';
import {
  createShopIntegrationBody,
  rotatedKeySchema,
  shopIntegrationSchema,
  shopIntegrationWithKeySchema,
  updateShopIntegrationBody,
} from '../../schemas/shop-integration.ts';

const PROJECTION = 'shop-integrations';
const tags = ['Administrator API'];
const notFound = () =>
  new HttpProblem(404, 'shop_integration_not_found', 'shop integration not found');

export const shopIntegrationRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const actor = (labelId: string) => ({ labelId, actor: `admin:${labelId}` });

  app.get(
    '/shop-integration',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Read all shop integrations of the label',
        response: { 200: z.array(shopIntegrationSchema), ...problems(401, 403) },
      },
    },
    async (request) => listShopIntegrations(deps.pool, principalOf(request, 'admin').labelId),
  );

  app.post(
    '/shop-integration',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Create a shop integration for the label',
        body: createShopIntegrationBody,
        response: { 201: shopIntegrationWithKeySchema, ...problems(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const { labelId } = principalOf(request, 'admin');
      const created = await createShopIntegration(deps.store, labelId, request.body, {
        ...actor(labelId),
        correlationId: request.id,
      });
      await readYourWrite(deps, PROJECTION, created.appended.position);
      const view = await getShopIntegration(deps.pool, labelId, created.id);
      if (!view) throw new Error('projection did not catch up in time');
      return reply.status(201).send({ ...view, apiKey: created.apiKey });
    },
  );

  app.get(
    '/shop-integration/:id',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Read one shop integration',
        params: idParams,
        response: { 200: shopIntegrationSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const view = await getShopIntegration(
        deps.pool,
        principalOf(request, 'admin').labelId,
        request.params.id,
      );
      if (!view) throw notFound();
      return view;
    },
  );

  app.put(
    '/shop-integration/:id',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Update one shop integration',
        params: idParams,
        body: updateShopIntegrationBody,
        response: { 200: shopIntegrationSchema, ...problems(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const { labelId } = principalOf(request, 'admin');
      const appended = await updateShopIntegration(
        deps.store,
        labelId,
        request.params.id,
        request.body,
        {
          ...actor(labelId),
          correlationId: request.id,
        },
      );
      await readYourWrite(deps, PROJECTION, appended?.position);
      const view = await getShopIntegration(deps.pool, labelId, request.params.id);
      if (!view) throw notFound();
      return view;
    },
  );

  app.put(
    '/shop-integration/:id/apikey',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Rotate the API key of one shop integration; the old key is refused at once',
        params: idParams,
        response: { 200: rotatedKeySchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { labelId } = principalOf(request, 'admin');
      const { apiKey, appended } = await rotateShopIntegrationKey(
        deps.store,
        labelId,
        request.params.id,
        {
          ...actor(labelId),
          correlationId: request.id,
        },
      );
      await readYourWrite(deps, PROJECTION, appended.position);
      return { id: request.params.id, apiKey };
    },
  );
};

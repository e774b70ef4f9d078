import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createShopIntegration,
  getShopIntegration,
  listShopIntegrations,
  rotateShopIntegrationKey,
  updateShopIntegration,
} from '../../../app/shop-integrations.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, idParams, problems } from '../../schemas/common.ts';
import {
  createShopIntegrationBody,
  rotatedKeySchema,
  shopIntegrationSchema,
  shopIntegrationWithKeySchema,
  toShopIntegration,
  updateShopIntegrationBody,
} from '../../schemas/shop-integration.ts';

const tags = ['Administrator API'];

export const shopIntegrationRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const label = (request: Parameters<typeof principalOf>[0]) =>
    principalOf(request, 'admin').labelId;

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
    async (request) =>
      (await listShopIntegrations(deps.app, label(request))).map(toShopIntegration),
  );

  app.post(
    '/shop-integration',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Create a shop integration for the label',
        body: createShopIntegrationBody,
        response: { 201: shopIntegrationWithKeySchema, ...problems(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { row, apiKey } = await createShopIntegration(
        deps.app,
        label(request),
        request.body,
        metadataOf(request),
      );
      return reply.status(201).send({ ...toShopIntegration(row), apiKey });
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
    async (request) =>
      toShopIntegration(await getShopIntegration(deps.app, label(request), request.params.id)),
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
    async (request) =>
      toShopIntegration(
        await updateShopIntegration(
          deps.app,
          label(request),
          request.params.id,
          request.body,
          metadataOf(request),
        ),
      ),
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
    async (request) =>
      rotateShopIntegrationKey(deps.app, label(request), request.params.id, metadataOf(request)),
  );
};

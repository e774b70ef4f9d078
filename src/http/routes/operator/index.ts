import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_PARTNER_ID } from '#projections/labels';
import { configureCallbacks } from '../../../app/callbacks.ts';
import { importCatalog, importProgress } from '../../../app/imports.ts';
import { createLabel } from '../../../app/labels.ts';
import { issuePrintshopKey } from '../../../app/printshop.ts';
import { changeShopIntegrationPermissions } from '../../../app/shop-integrations.ts';
import { parkedEvents, retryParked, subscriptionStatus } from '../../../app/subscriptions.ts';
import { ENVIRONMENTS } from '../../../domain/label/events.ts';
import { configurationSchema, skuSchema } from '../../../domain/product/configuration.ts';
import { permissionSchema } from '../../../domain/shop-integration/events.ts';
import { metadataOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { BULK_BODY_LIMIT } from '../../limits.ts';
import { apiKeySecurity, httpUrl, idParams, problems } from '../../schemas/common.ts';
import { importViewSchema } from '../../schemas/import.ts';
import { printSettingsRoutes } from '../print-settings.ts';
import { operatorOrderRoutes } from './orders.ts';

const tags = ['Operator API'];

/** Operator API (/operator): the operator key from configuration. */
export const operatorApi: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireKey('operator'));
  await app.register(operatorOrderRoutes, { deps });
  await app.register(printSettingsRoutes, {
    deps,
    path: '/labels/:labelId/print-settings',
    params: z.object({ labelId: z.uuid({ message: 'must be a UUID' }) }).strict(),
    labelOf: (request) => (request.params as { labelId: string }).labelId,
    tags,
  });

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
            partnerId: z.number().int().min(1).max(MAX_PARTNER_ID).optional(),
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
    async (request, reply) =>
      reply.status(201).send(await createLabel(deps.app, request.body, metadataOf(request))),
  );

  const callbackTarget = z.object({ url: httpUrl, apiKey: z.string().min(1).max(500) }).strict();
  app.post(
    '/labels/:labelId/callbacks',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "Set the label's partner-hosted callbacks (signup, login, forgot password) and the active environment",
        params: z.object({ labelId: z.uuid({ message: 'must be a UUID' }) }).strict(),
        body: z
          .object({
            staging: callbackTarget.optional(),
            production: callbackTarget,
            environment: z.enum(ENVIRONMENTS),
          })
          .strict()
          .meta({
            example: {
              staging: {
                url: 'https://staging.partner.example/editor-auth',
                apiKey: 'staging-key',
              },
              production: { url: 'https://partner.example/editor-auth', apiKey: 'production-key' },
              environment: 'production',
            },
          }),
        response: {
          200: z.object({
            labelId: z.uuid(),
            environment: z.enum(ENVIRONMENTS),
            staging: z.object({ url: z.string() }).optional(),
            production: z.object({ url: z.string() }),
          }),
          ...problems(400, 401, 403, 404, 413, 415),
        },
      },
    },
    async (request) => {
      const { labelId } = request.params;
      const { staging, production, environment } = request.body;
      await configureCallbacks(deps.app, labelId, request.body, metadataOf(request));
      return {
        labelId,
        environment,
        ...(staging ? { staging: { url: staging.url } } : {}),
        production: { url: production.url },
      };
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
    async (request) =>
      changeShopIntegrationPermissions(
        deps.app,
        request.params.id,
        request.body.permissions,
        metadataOf(request),
      ),
  );

  const suppliers = deps.config.suppliers as [string, ...string[]];
  const supplierParam = z
    .object({
      supplier: z.enum(suppliers, { message: `supplier must be one of: ${suppliers.join(', ')}` }),
    })
    .strict();

  app.get(
    '/suppliers',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "Supported suppliers; the print partner's own last",
        response: { 200: z.array(z.string()), ...problems(401, 403) },
      },
    },
    async () => deps.config.suppliers,
  );

  app.post(
    '/catalog/:supplier',
    {
      bodyLimit: BULK_BODY_LIMIT,
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Import up to 10,000 product configurations of a supplier (replacing those with the same SKU)',
        params: supplierParam,
        body: z
          .array(configurationSchema.extend({ sku: skuSchema, supplier: z.string().optional() }))
          .min(1)
          .max(10_000)
          .superRefine((items, ctx) => {
            const seen = new Set<string>();
            items.forEach((item, i) => {
              const k = item.sku.toLowerCase();
              if (seen.has(k))
                ctx.addIssue({
                  code: 'custom',
                  path: [i, 'sku'],
                  message: `SKU ${item.sku} appears twice`,
                });
              seen.add(k);
            });
          }),
        response: {
          202: z.object({ importId: z.uuid(), accepted: z.number().int() }),
          ...problems(400, 401, 403, 413, 415),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await importCatalog(deps.app, request.params.supplier, request.body, metadataOf(request)),
        ),
  );

  app.get(
    '/catalog/imports/:importId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Progress of a catalog import',
        params: z.object({ importId: z.uuid({ message: 'must be a UUID' }) }).strict(),
        response: { 200: importViewSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => importProgress(deps.app, request.params.importId, 'catalog'),
  );

  app.post(
    '/printshop-keys',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "Issue a key for the print partner's SKU maintenance",
        body: z.object({ name: z.string().trim().min(1).max(200) }).strict(),
        response: { 201: z.object({ apiKey: z.string() }), ...problems(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { apiKey } = await issuePrintshopKey(deps.app, request.body.name, metadataOf(request));
      return reply.status(201).send({ apiKey });
    },
  );

  const parkedSchema = z.object({
    subscription: z.string(),
    eventId: z.uuid(),
    streamId: z.string(),
    type: z.string(),
    position: z.object({ commit: z.string(), prepare: z.string() }),
    error: z.string(),
    attempts: z.number().int(),
    parkedAt: z.string(),
    lastAttemptAt: z.string(),
  });
  const nameParams = z.object({ name: z.string().min(1).max(100) }).strict();

  app.get(
    '/projections',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Each projection and reactor: checkpoint, events and seconds behind, whether this process runs it, whether it is failing, its parked events',
        response: {
          200: z.array(
            z.object({
              name: z.string(),
              kind: z.enum(['projection', 'reactor']),
              checkpoint: z.object({ commit: z.string(), prepare: z.string() }),
              behind: z.number().int(),
              lagSeconds: z.number(),
              running: z.boolean(),
              failing: z.object({ since: z.string(), error: z.string() }).nullable(),
              parked: z.number().int(),
              parkedEvents: z.array(parkedSchema),
            }),
          ),
          ...problems(401, 403),
        },
      },
    },
    async () => subscriptionStatus(deps.runners),
  );

  app.get(
    '/projections/:name/parked',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'The events a projection or reactor parked, oldest first',
        params: nameParams,
        querystring: z
          .object({ limit: z.coerce.number().int().min(1).max(1000).default(100) })
          .strict(),
        response: { 200: z.array(parkedSchema), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => parkedEvents(deps.runners, request.params.name, request.query.limit),
  );

  const retried = z.object({
    retried: z.number().int(),
    applied: z.number().int(),
    stillParked: z.array(parkedSchema),
  });
  app.post(
    '/projections/:name/parked/retry',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Take every parked event of a projection or reactor again (after a fix)',
        params: nameParams,
        response: { 200: retried, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => retryParked(deps.runners, request.params.name),
  );
  app.post(
    '/projections/:name/parked/:eventId/retry',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Take one parked event again (after a fix)',
        params: nameParams.extend({ eventId: z.uuid({ message: 'must be a UUID' }) }).strict(),
        response: { 200: retried, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => retryParked(deps.runners, request.params.name, request.params.eventId),
  );
};

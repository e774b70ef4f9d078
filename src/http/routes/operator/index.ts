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
import { metadataOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { BULK_BODY_LIMIT } from '../../limits.ts';
import { responseHeaders } from '../../openapi/document.ts';
import {
  apiKeySecurity,
  count,
  httpUrl,
  idParams,
  instant,
  problems,
  supplierOf,
} from '../../schemas/common.ts';
import { importViewSchema } from '../../schemas/import.ts';
import { permissionSchema } from '../../schemas/shop-integration.ts';
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
          .meta({ id: 'NewLabel', example: { name: 'Acme Print', partnerId: 42 } }),
        response: {
          201: z
            .object({
              labelId: z.uuid(),
              partnerId: z.number().int().min(1).max(MAX_PARTNER_ID),
              adminApiKey: z.string().describe('shown only in this answer'),
              fulfillmentApiKey: z.string().describe('shown only in this answer'),
            })
            .meta({ id: 'LabelCreated' }),
          ...problems(400, 401, 403, 409, 413, 415),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createLabel(deps.app, request.body, metadataOf(request))),
  );

  const callbackTarget = z
    .object({ url: httpUrl, apiKey: z.string().min(1).max(500) })
    .strict()
    .meta({
      id: 'CallbackTarget',
      description: "a partner's login system: its URL and the key it expects",
    });
  const environment = z.enum(ENVIRONMENTS).meta({ id: 'Environment' });
  const callbackUrl = z.object({ url: z.string() }).meta({ id: 'CallbackUrl' });
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
            environment,
          })
          .strict()
          .meta({
            id: 'Callbacks',
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
          200: z
            .object({
              labelId: z.uuid(),
              environment,
              staging: callbackUrl.optional(),
              production: callbackUrl,
            })
            .meta({
              id: 'CallbacksSet',
              description: 'the callbacks as set; their keys are never shown',
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
        body: z
          .object({ permissions: z.array(permissionSchema).max(10) })
          .strict()
          .meta({ id: 'PermissionsChange' }),
        response: {
          200: z
            .object({ id: z.uuid(), permissions: z.array(permissionSchema) })
            .meta({ id: 'Permissions' }),
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

  const supplierParam = z.object({ supplier: supplierOf(deps.config.suppliers) }).strict();

  app.get(
    '/suppliers',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "Supported suppliers; the print partner's own last",
        response: {
          200: z.array(z.string()).describe("the suppliers' names"),
          ...problems(401, 403),
        },
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
          .array(
            configurationSchema.extend({ sku: skuSchema, supplier: z.string().optional() }).meta({
              id: 'CatalogEntry',
              description: 'a product configuration of the supplier, by SKU',
            }),
          )
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
          202: z
            .object({ importId: z.uuid(), accepted: count })
            .meta({ id: 'CatalogImportStarted' }),
          ...problems(400, 401, 403, 413, 415),
        },
        ...responseHeaders({ 202: ['location'] }),
      },
    },
    async (request, reply) => {
      const started = await importCatalog(
        deps.app,
        request.params.supplier,
        request.body,
        metadataOf(request),
      );
      return reply
        .status(202)
        .header('location', `/operator/catalog/imports/${started.importId}`)
        .send(started);
    },
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
        body: z
          .object({ name: z.string().trim().min(1).max(200) })
          .strict()
          .meta({ id: 'NewPrintshopKey' }),
        response: {
          201: z
            .object({ apiKey: z.string().describe('shown only in this answer') })
            .meta({ id: 'PrintshopKeyCreated' }),
          ...problems(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const { apiKey } = await issuePrintshopKey(deps.app, request.body.name, metadataOf(request));
      return reply.status(201).send({ apiKey });
    },
  );

  const logPosition = z
    .object({ commit: z.string(), prepare: z.string() })
    .meta({ id: 'LogPosition', description: 'a place in the event log, as decimal strings' });
  const parkedSchema = z
    .object({
      subscription: z.string(),
      eventId: z.uuid(),
      streamId: z.string(),
      type: z.string(),
      position: logPosition,
      error: z.string(),
      attempts: count,
      parkedAt: instant,
      lastAttemptAt: instant,
    })
    .meta({ id: 'ParkedEvent', description: 'an event set aside after failing repeatedly' });
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
            z
              .object({
                name: z.string(),
                kind: z.enum(['projection', 'reactor']),
                checkpoint: logPosition,
                behind: count,
                lagSeconds: z.number().min(0),
                running: z.boolean(),
                failing: z
                  .object({ since: instant, error: z.string() })
                  .meta({ id: 'Failing', description: 'failing since then, with the last error' })
                  .nullable(),
                parked: count,
                parkedEvents: z.array(parkedSchema),
              })
              .meta({
                id: 'Subscription',
                description: 'a projection or reactor and how it keeps up',
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

  const retried = z
    .object({
      retried: count,
      applied: count,
      stillParked: z.array(parkedSchema),
    })
    .meta({ id: 'ParkedRetried' });
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

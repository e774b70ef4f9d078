import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  disableWebhook,
  enableWebhook,
  getWebhook,
  recoverDeliveries,
  resendDelivery,
  rotateWebhookSecret,
  setWebhook,
  webhookDeliveries,
} from '../../../app/webhooks.ts';
import { webhookEventTypeSchema } from '../../../domain/shop-integration/events.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, idParams, problems } from '../../schemas/common.ts';

const tags = ['Administrator API'];

const webhookSchema = z.object({
  integrationId: z.uuid(),
  url: z.string().nullable(),
  events: z.array(webhookEventTypeSchema).nullable(),
  state: z.enum(['none', 'enabled', 'disabled']),
  disabled: z.object({ reason: z.string(), detail: z.string(), at: z.string() }).nullable(),
  secrets: z.array(z.object({ secretId: z.string(), until: z.string().nullable() })),
  lastSuccessAt: z.string().nullable(),
  failingSince: z.string().nullable(),
});
const withSecret = webhookSchema.extend({
  secret: z.string().meta({ description: 'the signing secret (whsec_...), shown this once' }),
});

const deliverySchema = z.object({
  deliveryId: z.string(),
  messageId: z.string(),
  type: z.string(),
  orderId: z.string(),
  status: z.enum(['retrying', 'delivered', 'failed', 'pending']),
  runs: z.number().int(),
  attempts: z.number().int(),
  firstAttemptAt: z.string(),
  lastAttemptAt: z.string(),
  deliveredAt: z.string().nullable(),
  log: z.array(z.record(z.string(), z.unknown())),
});

const deliveryParams = z
  .object({ id: z.uuid({ message: 'must be a UUID' }), deliveryId: z.string().min(1).max(200) })
  .strict();

/** A shop integration's webhook: signed order-status messages, retried, logged, resent. */
export const webhookRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const label = (request: Parameters<typeof principalOf>[0]) =>
    principalOf(request, 'admin').labelId;
  const base = '/shop-integration/:id/webhook';

  app.put(
    base,
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Set the webhook of a shop integration (https; the event types, every one when absent); answers the signing secret once',
        params: idParams,
        body: z
          .object({
            url: z.string().max(2048),
            events: z.array(webhookEventTypeSchema).min(1).max(20).optional(),
          })
          .strict()
          .meta({
            example: { url: 'https://shop.example/hooks/print', events: ['order.ready'] },
          }),
        response: { 200: withSecret, ...problems(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      setWebhook(deps.app, label(request), request.params.id, request.body, metadataOf(request)),
  );

  app.get(
    base,
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'The webhook: url, events, state, secrets in use, last success, failing since',
        params: idParams,
        response: { 200: webhookSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => getWebhook(deps.app, label(request), request.params.id),
  );

  app.post(
    `${base}/rotate`,
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'A new signing secret, answered once; the one before keeps signing beside it for 24 hours',
        params: idParams,
        response: { 200: withSecret, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      rotateWebhookSecret(deps.app, label(request), request.params.id, metadataOf(request)),
  );

  for (const [action, run] of [
    ['disable', disableWebhook],
    ['enable', enableWebhook],
  ] as const)
    app.post(
      `${base}/${action}`,
      {
        schema: {
          tags,
          security: apiKeySecurity,
          summary:
            action === 'disable'
              ? 'Stop sending (messages stay in the events feed)'
              : 'Send again from now on (failed deliveries: recover them)',
          params: idParams,
          response: { 200: webhookSchema, ...problems(400, 401, 403, 404, 409) },
        },
      },
      async (request) => run(deps.app, label(request), request.params.id, metadataOf(request)),
    );

  app.get(
    `${base}/deliveries`,
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Deliveries, newest first, with their attempts (status, latency, the answer)',
        params: idParams,
        querystring: z
          .object({
            status: z.enum(['retrying', 'delivered', 'failed', 'pending']).optional(),
            since: z.iso.datetime({ offset: true }).optional(),
            limit: z.coerce.number().int().min(1).max(500).default(100),
          })
          .strict(),
        response: { 200: z.array(deliverySchema), ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      webhookDeliveries(deps.app, label(request), request.params.id, request.query),
  );

  app.post(
    `${base}/deliveries/:deliveryId/resend`,
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Send one delivery again, on a fresh schedule, with the same webhook-id',
        params: deliveryParams,
        response: {
          202: z.object({ deliveryId: z.string(), run: z.number().int() }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return resendDelivery(
        deps.app,
        label(request),
        request.params.id,
        request.params.deliveryId,
        metadataOf(request),
      );
    },
  );

  app.post(
    `${base}/recover`,
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Send again every failed delivery first tried at or after `since`',
        params: idParams,
        body: z
          .object({ since: z.iso.datetime({ offset: true }) })
          .strict()
          .meta({ example: { since: '2026-11-20T00:00:00Z' } }),
        response: {
          202: z.object({ resent: z.number().int(), deliveryIds: z.array(z.string()) }),
          ...problems(400, 401, 403, 404, 409, 415),
        },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return recoverDeliveries(
        deps.app,
        label(request),
        request.params.id,
        request.body.since,
        metadataOf(request),
      );
    },
  );
};

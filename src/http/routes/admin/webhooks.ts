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
import {
  webhookDeliverySettingsSchema,
  webhookEventTypeSchema,
} from '../../../domain/shop-integration/events.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, count, idParams, instant, problems } from '../../schemas/common.ts';

const tags = ['Administrator API'];

const eventType = webhookEventTypeSchema.meta({
  id: 'WebhookEventType',
  description: 'a kind of order message a webhook can be sent',
});

const deliverySettings = webhookDeliverySettingsSchema.strict().meta({
  id: 'WebhookDeliverySettings',
  description:
    'ordered: one message at a time in log order (a failing one holds back the rest); otherwise up to maxInFlight at once, at most ratePerSecond a second when set',
});

const webhookSchema = z
  .object({
    integrationId: z.uuid(),
    url: z.string().nullable(),
    events: z.array(eventType).nullable().describe('the types sent; null: every type'),
    delivery: deliverySettings,
    state: z.enum(['none', 'enabled', 'disabled']),
    disabled: z
      .object({ reason: z.string(), detail: z.string(), at: instant })
      .meta({ id: 'WebhookDisabled', description: 'why and when sending stopped' })
      .nullable(),
    secrets: z.array(
      z
        .object({
          secretId: z.string(),
          until: instant
            .nullable()
            .describe('a rotated-out secret signs beside the new one until then'),
        })
        .meta({
          id: 'WebhookSecret',
          description: 'a secret that signs now (its value is never shown again)',
        }),
    ),
    lastSuccessAt: instant.nullable(),
    failingSince: instant.nullable(),
  })
  .meta({ id: 'Webhook' });
const withSecret = webhookSchema
  .extend({
    secret: z.string().meta({ description: 'the signing secret (whsec_...), shown this once' }),
  })
  .meta({ id: 'WebhookWithSecret' });

const deliveryStatus = z
  .enum(['retrying', 'delivered', 'failed', 'pending'])
  .meta({ id: 'WebhookDeliveryStatus' });

const deliverySchema = z
  .object({
    deliveryId: z.string(),
    messageId: z.string(),
    type: eventType,
    orderId: z.string().nullable().meta({
      description: "the order the message is of; null for the label's daily tree head",
    }),
    status: deliveryStatus,
    runs: count,
    attempts: count,
    firstAttemptAt: instant,
    lastAttemptAt: instant,
    deliveredAt: instant.nullable(),
    log: z
      .array(
        z
          .object({
            run: count,
            attempt: count,
            at: instant,
            status: z
              .number()
              .int()
              .min(100)
              .max(599)
              .nullable()
              .describe("the receiver's status code; null when no answer came"),
            error: z.string().nullable(),
            latencyMs: count,
            response: z.string().describe("the first KiB of the receiver's answer"),
            outcome: z.enum(['delivered', 'retrying', 'failed', 'gone']),
          })
          .meta({ id: 'WebhookAttempt' }),
      )
      .describe('the latest attempts, up to 20'),
  })
  .meta({ id: 'WebhookDelivery' });

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
            events: z.array(eventType).min(1).max(20).optional(),
            delivery: deliverySettings
              .optional()
              .describe('how messages go to it; { ordered: false, maxInFlight: 16 } when absent'),
          })
          .strict()
          .meta({
            id: 'WebhookChange',
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
        summary:
          'Deliveries, newest first, with their attempts (status, latency, the answer); a full page links the next (Link: rel="next", or before=<cursor>)',
        params: idParams,
        querystring: z
          .object({
            status: deliveryStatus.optional(),
            since: z.iso.datetime({ offset: true }).optional(),
            before: z
              .string()
              .max(400)
              .optional()
              .describe('the cursor of the page before (from the Link header)'),
            limit: z.coerce.number().int().min(1).max(500).default(100),
          })
          .strict(),
        response: { 200: z.array(deliverySchema), ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const page = await webhookDeliveries(
        deps.app,
        label(request),
        request.params.id,
        request.query,
      );
      if (page.next) {
        const q = new URLSearchParams();
        for (const [k, v] of Object.entries(request.query))
          if (v !== undefined && k !== 'before') q.set(k, String(v));
        q.set('before', page.next);
        reply.header('link', `<${request.url.split('?')[0]}?${q}>; rel="next"`);
      }
      return page.deliveries;
    },
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
          202: z.object({ deliveryId: z.string(), run: count }).meta({ id: 'ResendStarted' }),
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
          .meta({ id: 'RecoverRequest', example: { since: '2026-11-20T00:00:00Z' } }),
        response: {
          202: z
            .object({ resent: count, deliveryIds: z.array(z.string()) })
            .meta({ id: 'RecoverStarted' }),
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

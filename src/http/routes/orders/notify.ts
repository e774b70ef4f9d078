import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { receiveOrder } from '../../../app/orders.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { HttpProblem } from '../../problem.ts';
import { apiKeySecurity, problems } from '../../schemas/common.ts';
import { notificationAnswer, notificationBody } from '../../schemas/order.ts';

const summary = 'Sale notification: record the order and generate its print files';

/** POST /webhook/notifyorder and /api/notifyorder: a shop integration's key. */
export const shopNotifyRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', app.requireKey('integration'));
  app.post(
    '/notifyorder',
    {
      schema: {
        tags: ['Shop integrator API'],
        security: apiKeySecurity,
        summary,
        body: notificationBody,
        response: { 200: notificationAnswer, ...problems(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request) => {
      const { labelId, integrationId } = principalOf(request, 'integration');
      return receiveOrder(
        deps.app,
        labelId,
        { channel: 'shop', integrationId },
        request.body,
        metadataOf(request),
      );
    },
  );
};

/** POST /v1/webhook/partner/{partnerid}/notifyorder: the label's fulfillment key. */
export const fulfillmentNotifyRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', app.requireKey('fulfillment'));
  app.post(
    '/webhook/partner/:partnerid/notifyorder',
    {
      schema: {
        tags: ['Order fulfillment API'],
        security: apiKeySecurity,
        summary,
        params: z.object({ partnerid: z.coerce.number().int().min(1).max(2_147_483_647) }).strict(),
        body: notificationBody,
        response: { 201: notificationAnswer, ...problems(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { labelId, partnerId, facilityId } = principalOf(request, 'fulfillment');
      // a facility makes what is routed to it: it does not take sales
      if (facilityId)
        throw new HttpProblem(
          403,
          'wrong_key_kind',
          "a facility's key does not open this endpoint",
        );
      if (request.params.partnerid !== partnerId) {
        throw new HttpProblem(403, 'wrong_partner', 'this key belongs to another partner id');
      }
      return reply
        .status(201)
        .send(
          await receiveOrder(
            deps.app,
            labelId,
            { channel: 'fulfillment' },
            request.body,
            metadataOf(request),
          ),
        );
    },
  );
};

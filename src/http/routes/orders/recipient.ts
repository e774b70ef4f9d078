import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { correctShipTo, eraseCustomer } from '../../../app/recipients.ts';
import { shipToSchema } from '../../../domain/order/ship-to.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, instant, problems } from '../../schemas/common.ts';
import { orderActionParams } from '../../schemas/order-list.ts';

const tags = ['Administrator API'];

/** An order's recipient: corrected until it ships; the customer's data erased (admin key). */
export const recipientRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const label = (request: Parameters<typeof principalOf>[0]) =>
    principalOf(request, 'admin').labelId;

  app.put(
    '/orders/:orderId/ship-to',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "Correct the recipient's address until anything of the order ships (checked as at receipt; the old and the new one kept encrypted)",
        params: orderActionParams,
        body: shipToSchema,
        response: { 200: shipToSchema, ...problems(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      correctShipTo(
        deps.app,
        label(request),
        request.params.orderId,
        request.body,
        metadataOf(request),
      ),
  );

  app.delete(
    '/orders/:orderId/customer',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "Erase the customer's personal data of an order (name, email, gift message, address): its key is destroyed, the history stays",
        params: orderActionParams,
        response: {
          200: z.object({ orderId: z.string(), erasedAt: instant }).meta({
            id: 'CustomerErased',
            example: { orderId: 'SHOP-100234', erasedAt: '2026-11-27T08:00:00.000Z' },
          }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) =>
      eraseCustomer(deps.app, label(request), request.params.orderId, metadataOf(request)),
  );
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { packingSlip } from '../../../app/branding.ts';
import type { HttpDeps } from '../../deps.ts';
import { responseHeaders } from '../../openapi/document.ts';
import { apiKeySecurity, problems } from '../../schemas/common.ts';
import { orderActionParams } from '../../schemas/order-list.ts';

/** GET /api/orders/{orderId}/packing-slip: the label's admin key or its fulfillment key. */
export const packingSlipRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', app.requireKey('admin', 'fulfillment'));
  app.get(
    '/orders/:orderId/packing-slip',
    {
      schema: {
        tags: ['Administrator API', 'Order fulfillment API'],
        security: apiKeySecurity,
        summary:
          "The order's packing slip (PDF): the label's logo, return address and message, the recipient, the order id as a Code 128 barcode, every item (a facility's: its own), the gift message",
        params: orderActionParams,
        querystring: z
          .object({
            facilityId: z
              .uuid({ message: 'must be a UUID' })
              .optional()
              .describe(
                "a split order's slip of one facility: its items only (a facility's key gets its own always)",
              ),
          })
          .strict(),
        produces: ['application/pdf'],
        response: {
          200: z
            .instanceof(Buffer)
            .meta({ type: 'string', format: 'binary', description: 'the packing slip' }),
          ...problems(400, 401, 403, 404),
        },
        ...responseHeaders({ 200: ['content-disposition'] }),
      },
    },
    async (request, reply) => {
      const p = request.principal;
      if (!p || (p.kind !== 'admin' && p.kind !== 'fulfillment'))
        throw new Error('route expects an admin or fulfillment principal');
      const { orderId } = request.params;
      const facilityId =
        p.kind === 'fulfillment' && p.facilityId ? p.facilityId : request.query.facilityId;
      const pdf = await packingSlip(deps.app, p.labelId, orderId, facilityId);
      return reply
        .type('application/pdf')
        .header(
          'content-disposition',
          `inline; filename="packing-slip-${orderId.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf"`,
        )
        .send(Buffer.from(pdf));
    },
  );
};

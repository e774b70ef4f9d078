import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordOf } from '../../../app/records.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, problems } from '../../schemas/common.ts';

const params = z
  .object({
    orderItemId: z.uuid({ message: 'must be a UUID' }),
    record: z.coerce.number().int().min(1).max(100_000),
  })
  .strict();

/**
 * One record of a variable item alone (/api/orderitems/{id}/records/{n}/pdf and
 * /preview), by the label's admin or its print shop's fulfillment key.
 */
export const recordRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireKey('admin', 'fulfillment'));
  const labelOf = (request: FastifyRequest) => {
    const p = request.principal;
    return p && 'labelId' in p ? p.labelId : '';
  };
  const tags = ['Administrator API', 'Fulfillment API'];

  app.get(
    '/orderitems/:orderItemId/records/:record/pdf',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "One record alone as PDF/VT: the shared part and the record, whose bytes are its part of the item's print file (X-Record-Sha256 is their hash)",
        params,
        response: {
          200: z.instanceof(Buffer).meta({ type: 'string', format: 'binary' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { orderItemId, record } = request.params;
      const r = await recordOf(deps.app, labelOf(request), orderItemId, record, 'pdf');
      return reply
        .header('content-type', 'application/pdf')
        .header('x-record-sha256', r.segmentSha256)
        .header('content-disposition', `inline; filename="${orderItemId}-record-${record}.pdf"`)
        .send(Buffer.from(r.bytes));
    },
  );

  app.get(
    '/orderitems/:orderItemId/records/:record/preview',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'One record drawn as a PNG (its first page), from the PDF its file holds',
        params,
        response: {
          200: z.instanceof(Buffer).meta({ type: 'string', format: 'binary' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { orderItemId, record } = request.params;
      const r = await recordOf(deps.app, labelOf(request), orderItemId, record, 'png');
      return reply
        .header('content-type', 'image/png')
        .header('x-record-sha256', r.segmentSha256)
        .send(Buffer.from(r.bytes));
    },
  );
};

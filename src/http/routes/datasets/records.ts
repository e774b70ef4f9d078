import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { recordOf } from '../../../app/records.ts';
import { labelIdOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, problems } from '../../schemas/common.ts';

const params = z
  .object({
    orderItemId: z.uuid({ message: 'must be a UUID' }),
    record: z.coerce.number().int().min(1).max(100_000),
  })
  .strict();

const ANSWERS = {
  pdf: {
    as: 'pdf',
    type: 'application/pdf',
    summary:
      "One record alone as PDF/VT: the shared part and the record, whose bytes are its part of the item's print file (X-Record-Sha256 is their hash)",
  },
  preview: {
    as: 'png',
    type: 'image/png',
    summary: 'One record drawn as a PNG (its first page), from the PDF its file holds',
  },
} as const;

/**
 * One record of a variable item alone (/api/orderitems/{id}/records/{n}/pdf and
 * /preview), by the label's admin or its print shop's fulfillment key.
 */
export const recordRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireKey('admin', 'fulfillment'));
  for (const [path, answer] of Object.entries(ANSWERS)) {
    app.get(
      `/orderitems/:orderItemId/records/:record/${path}`,
      {
        schema: {
          tags: ['Administrator API', 'Fulfillment API'],
          security: apiKeySecurity,
          summary: answer.summary,
          params,
          response: {
            200: z.instanceof(Buffer).meta({ type: 'string', format: 'binary' }),
            ...problems(400, 401, 403, 404),
          },
        },
      },
      async (request, reply) => {
        const { orderItemId, record } = request.params;
        const p = request.principal;
        const floor = {
          labelId: labelIdOf(request),
          ...(p?.kind === 'fulfillment' && p.facilityId ? { facilityId: p.facilityId } : {}),
        };
        const r = await recordOf(deps.app, floor, orderItemId, record, answer.as);
        reply.header('content-type', answer.type).header('x-record-sha256', r.segmentSha256);
        if (answer.as === 'pdf')
          reply.header(
            'content-disposition',
            `inline; filename="${orderItemId}-record-${record}.pdf"`,
          );
        return reply.send(Buffer.from(r.bytes));
      },
    );
  }
};

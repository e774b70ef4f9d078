import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  findOfferingWithPrices,
  SMARTLINK_CAP,
  searchOfferings,
  smartlinkPage,
} from '#projections/offerings';
import { skuSchema } from '../../../domain/product/configuration.ts';
import { principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { responseHeaders } from '../../openapi/document.ts';
import { HttpProblem } from '../../problem.ts';
import { cacheResponses } from '../../response-cache.ts';
import { apiKeySecurity, problems, supplierOf } from '../../schemas/common.ts';
import {
  offeringDetailSchema,
  offeringItemSchema,
  offeringSearchItemSchema,
  toDetail,
  toItem,
} from '../../schemas/offering.ts';

const tags = ['Shop integrator API'];

/** The three offering endpoints: an integration key with the `offering` permission. */
export const offeringRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const supplier = supplierOf(deps.config.suppliers);

  app.addHook('onRequest', app.requireKey('integration'));
  app.addHook('onRequest', async (request) => {
    if (!principalOf(request, 'integration').permissions.includes('offering')) {
      throw new HttpProblem(
        403,
        'missing_permission',
        'this integration lacks the offering permission; the operator grants it',
      );
    }
  });
  // prices are per label, so the label is part of what makes two answers equal
  cacheResponses(app, {
    feed: deps.feed,
    readModels: ['offerings', 'prices'],
    key: (request) =>
      `${principalOf(request, 'integration').labelId} ${request.method} ${request.url}`,
  });

  app.get(
    '/sku',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Find configurations by a partial SKU: exact, then prefix, then substring; at most 50',
        querystring: z.object({ sku: skuSchema, supplier }).strict(),
        response: { 200: z.array(offeringSearchItemSchema), ...problems(400, 401, 403) },
      },
    },
    async (request) => {
      const rows = await searchOfferings(deps.app.pool, request.query.supplier, request.query.sku);
      return rows.map((r) => ({ ...toItem(r), supplier: r.supplier }));
    },
  );

  app.get(
    '/sku/data',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The full configuration of a complete SKU, with the label's prices",
        querystring: z.object({ sku: skuSchema, supplier }).strict(),
        response: { 200: offeringDetailSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { labelId } = principalOf(request, 'integration');
      const found = await findOfferingWithPrices(
        deps.app.pool,
        labelId,
        request.query.supplier,
        request.query.sku,
      );
      if (!found)
        throw new HttpProblem(
          404,
          'sku_not_found',
          `no configuration ${request.query.sku} for ${request.query.supplier}`,
        );
      return toDetail(found.row, found.prices);
    },
  );

  app.get(
    '/smartlink',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: `All configurations of a supplier by SKU, paginated; only the first ${SMARTLINK_CAP} are reachable`,
        querystring: z
          .object({
            supplier,
            limit: z.coerce.number().int().min(1).max(SMARTLINK_CAP).default(20),
            offset: z.coerce.number().int().min(0).max(2_147_483_647).default(0),
          })
          .strict(),
        response: { 200: z.array(offeringItemSchema), ...problems(400, 401, 403) },
        ...responseHeaders({
          200: ['x-total-records', 'x-pagination-next', 'x-pagination-previous'],
        }),
      },
    },
    async (request, reply) => {
      const { supplier: s, limit, offset } = request.query;
      const { rows, reachable } = await smartlinkPage(deps.app.pool, s, limit, offset);
      const page = (o: number) =>
        `/api/offering/smartlink?supplier=${encodeURIComponent(s)}&limit=${limit}&offset=${o}`;
      reply.header('x-total-records', String(reachable));
      if (offset + rows.length < reachable)
        reply.header('x-pagination-next', page(offset + rows.length));
      if (offset > 0)
        reply.header(
          'x-pagination-previous',
          page(Math.max(0, Math.min(offset, reachable) - limit)),
        );
      return rows.map(toItem);
    },
  );
};

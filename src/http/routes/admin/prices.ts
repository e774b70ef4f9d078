import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { importPrices } from '../../../app/prices.ts';
import { currencySchema, priceSchema } from '../../../domain/price-list/events.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, count, problems, supplierOf } from '../../schemas/common.ts';

export const priceRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const supplier = supplierOf(deps.config.suppliers);
  app.post(
    '/price/import',
    {
      schema: {
        tags: ['Administrator API'],
        security: apiKeySecurity,
        summary: "Import the label's prices: per SKU and minimum quantity, in one currency",
        body: z
          .object({
            currency: currencySchema,
            prices: z
              .array(
                priceSchema.extend({ supplier }).meta({
                  id: 'LabelPrice',
                  description: "the label's own price of a configuration from a quantity on",
                }),
              )
              .min(1)
              .max(5000),
          })
          .strict()
          .meta({
            id: 'PriceImport',
            example: {
              currency: 'EUR',
              prices: [
                {
                  sku: 'MUG-CL-WHITE',
                  supplier: 'printshop',
                  minQuantity: 1,
                  unitPrice: '4.20',
                  setupPrice: '25.00',
                },
              ],
            },
          }),
        response: {
          201: z.object({ importId: z.uuid(), imported: count }).meta({ id: 'PricesImported' }),
          ...problems(400, 401, 403, 409, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const { labelId } = principalOf(request, 'admin');
      return reply
        .status(201)
        .send(await importPrices(deps.app, labelId, request.body, metadataOf(request)));
    },
  );
};

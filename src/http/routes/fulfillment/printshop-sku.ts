import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { importProgress } from '../../../app/imports.ts';
import { addSkuGroups, changePrintshopSku } from '../../../app/printshop.ts';
import { GROUP_NAME_MAX, skuSchema, slugify } from '../../../domain/product/configuration.ts';
import { metadataOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { BULK_BODY_LIMIT } from '../../limits.ts';
import { responseHeaders } from '../../openapi/document.ts';
import { apiKeySecurity, count, problems } from '../../schemas/common.ts';
import { importViewSchema } from '../../schemas/import.ts';

const tags = ['Order fulfillment API'];

const groupsBody = z
  .array(
    z
      .object({
        groupName: z
          .string()
          .trim()
          .min(1)
          .max(GROUP_NAME_MAX)
          .refine((g) => slugify(g).length > 0, {
            message: 'a group name needs at least one letter or digit',
          }),
        skus: z.array(skuSchema).min(1, 'a group needs at least one SKU').max(10_000),
      })
      .strict()
      .meta({ id: 'SkuGroup', description: 'a group of new SKUs under one name' }),
  )
  .min(1)
  .max(1000)
  .superRefine((groups, ctx) => {
    const seen = new Map<string, string>();
    groups.forEach((g, gi) => {
      g.skus.forEach((sku, si) => {
        const k = sku.toLowerCase();
        if (seen.has(k)) {
          ctx.addIssue({
            code: 'custom',
            path: [gi, 'skus', si],
            message: `SKU ${sku} appears twice in the body (also at ${seen.get(k)})`,
          });
        } else seen.set(k, `${gi}.skus.${si}`);
      });
    });
  })
  .meta({ example: [{ groupName: 'Mug classic', skus: ['MUG-CL-WHITE', 'MUG-CL-BLACK'] }] });

/** SKU maintenance for the one print partner: the printshop key. */
export const printshopSkuRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const supplier = deps.config.printshopSupplier;
  app.addHook('onRequest', app.requireKey('printshop'));

  app.put(
    '/sku',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Change the SKU of a product; publish false stages it until the same change is sent with publish true',
        body: z
          .object({ newSku: skuSchema, oldSku: skuSchema, publish: z.boolean() })
          .strict()
          .meta({
            id: 'SkuChange',
            example: { oldSku: 'MUG-CL-WHITE', newSku: 'MUG-CLASSIC-WHITE', publish: true },
          }),
        response: {
          200: z
            .object({ oldSku: z.string(), newSku: z.string(), published: z.boolean() })
            .meta({ id: 'SkuChanged' }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => changePrintshopSku(deps.app, supplier, request.body, metadataOf(request)),
  );

  app.post(
    '/sku',
    {
      bodyLimit: BULK_BODY_LIMIT,
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Add new SKU groups; runs asynchronously, progress at /v1/api/printshop/sku/imports/{importId}',
        body: groupsBody,
        response: {
          202: z
            .object({ importId: z.uuid(), groups: count, skus: count })
            .meta({ id: 'SkuGroupsImportStarted' }),
          ...problems(400, 401, 403, 413, 415),
        },
        ...responseHeaders({ 202: ['location'] }),
      },
    },
    async (request, reply) => {
      const started = await addSkuGroups(deps.app, supplier, request.body, metadataOf(request));
      return reply
        .status(202)
        .header('location', `/v1/api/printshop/sku/imports/${started.importId}`)
        .send(started);
    },
  );

  app.get(
    '/sku/imports/:importId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Progress of an SKU group import',
        params: z.object({ importId: z.uuid({ message: 'must be a UUID' }) }).strict(),
        response: { 200: importViewSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => importProgress(deps.app, request.params.importId, 'printshop-skus'),
  );
};

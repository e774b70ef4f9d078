import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findImport } from '../../../../projections/imports.ts';
import { requestImport } from '../../../app/imports.ts';
import { changePrintshopSku } from '../../../app/printshop.ts';
import {
  configurationSchema,
  GROUP_NAME_MAX,
  skuSchema,
  slugify,
} from '../../../domain/product/configuration.ts';
import { principalOf } from '../../auth.ts';
import { type HttpDeps, readYourWrite } from '../../deps.ts';
import { BULK_BODY_LIMIT } from '../../limits.ts';
import { HttpProblem } from '../../problem.ts';
import { apiKeySecurity, problems } from '../../schemas/common.ts';
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
      .strict(),
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
  const meta = (keyId: string, correlationId: string) => ({
    actor: `printshop:${keyId}`,
    correlationId,
  });

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
            example: { oldSku: 'MUG-CL-WHITE', newSku: 'MUG-CLASSIC-WHITE', publish: true },
          }),
        response: {
          200: z.object({ oldSku: z.string(), newSku: z.string(), published: z.boolean() }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const { keyId } = principalOf(request, 'printshop');
      const r = await changePrintshopSku(
        deps.store,
        supplier,
        request.body,
        meta(keyId, request.id),
      );
      for (const p of r.positions) await readYourWrite(deps, 'offerings', p);
      return { oldSku: request.body.oldSku, newSku: request.body.newSku, published: r.published };
    },
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
          202: z.object({ importId: z.uuid(), groups: z.number().int(), skus: z.number().int() }),
          ...problems(400, 401, 403, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const { keyId } = principalOf(request, 'printshop');
      const items = request.body.flatMap((g) =>
        g.skus.map((sku) => ({
          sku,
          configuration: configurationSchema.parse({
            baseSKU: sku,
            skuGroup: slugify(g.groupName),
            name: g.groupName,
          }),
        })),
      );
      const existing = await deps.pool.query<{ sku: string }>(
        'SELECT sku FROM rm_offerings WHERE supplier = $1 AND sku_lower = ANY($2::text[]) ORDER BY sku',
        [supplier, items.map((i) => i.sku.toLowerCase())],
      );
      if (existing.rows.length > 0) {
        const names = existing.rows.map((r) => r.sku);
        throw new HttpProblem(
          400,
          'sku_exists',
          `already on the platform: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ` and ${names.length - 20} more` : ''}`,
        );
      }
      const { importId } = await requestImport(
        deps.store,
        { kind: 'printshop-skus', supplier, items, groups: request.body.length },
        meta(keyId, request.id),
      );
      return reply.status(202).send({ importId, groups: request.body.length, skus: items.length });
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
    async (request) => {
      const view = await findImport(deps.pool, request.params.importId, 'printshop-skus');
      if (!view) throw new HttpProblem(404, 'import_not_found', 'no such import');
      return view;
    },
  );
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { batching, setBatching } from '../../../app/batching-rules.ts';
import { batchSpecSchema } from '../../../domain/batch/events.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, problems } from '../../schemas/common.ts';
import { impositionFields } from '../fulfillment/batches.ts';

const tags = ['Administrator API'];

const rule = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/, 'letters, digits, space, _ . -; at most 64'),
    filter: z
      .object({
        printMethod: z.string().trim().min(1).max(100).optional(),
        sku: z.string().trim().min(1).max(200).optional(),
        facilityId: z
          .uuid({ message: 'must be a UUID' })
          .optional()
          .describe("a facility's rule: it opens that facility's press runs, of its own items"),
      })
      .strict()
      .optional(),
    ...impositionFields,
    everyMinutes: z
      .number()
      .int()
      .min(1)
      .max(10_080)
      .optional()
      .describe('open a batch of what is ready every N minutes'),
    whenSheetFull: z.boolean().optional().describe('open a batch as soon as a sheet would be full'),
  })
  .strict()
  .meta({ id: 'BatchingRule' });

const batchingBody = z
  .object({
    rules: z.array(rule).max(20),
    hotFolder: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'letters, digits, _ and -; at most 64')
      .nullable()
      .optional()
      .describe(
        "a folder (in the service's file store: a directory, or a bucket prefix) where each imposed batch appears whole, its manifest.json last",
      ),
  })
  .strict()
  .meta({
    id: 'Batching',
    example: {
      rules: [
        {
          name: 'cards',
          filter: { sku: 'BC-85x55' },
          media: { preset: 'SRA3' },
          mode: 'step-repeat',
          everyMinutes: 60,
          whenSheetFull: true,
        },
      ],
      hotFolder: 'press-1',
    },
  });

const batchingAnswer = z
  .object({
    rules: z.array(
      z.object({
        name: z.string(),
        filter: z.object({
          printMethod: z.string().optional(),
          sku: z.string().optional(),
          facilityId: z.uuid().optional(),
        }),
        spec: batchSpecSchema,
        everyMinutes: z.number().int().min(1).max(10_080).nullable(),
        whenSheetFull: z.boolean(),
      }),
    ),
    hotFolder: z.string().nullable(),
  })
  .meta({ id: 'BatchingSettings' });

/** GET and PUT /api/production/batching: the label's batching rules and hot folder. */
export const batchingRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const labelOf = (request: Parameters<typeof metadataOf>[0]) =>
    principalOf(request, 'admin').labelId;
  app.get(
    '/production/batching',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The label's batching rules and hot folder",
        response: { 200: batchingAnswer, ...problems(401, 403) },
      },
    },
    async (request) => batching(deps.app, labelOf(request)),
  );
  app.put(
    '/production/batching',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "Sets the label's batching rules (batches opened every N minutes or when a sheet would be full) and hot folder",
        body: batchingBody,
        response: { 200: batchingAnswer, ...problems(400, 401, 403, 415) },
      },
    },
    async (request) => setBatching(deps.app, labelOf(request), request.body, metadataOf(request)),
  );
};

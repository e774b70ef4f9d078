import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { checkDataset, eraseDataset, keptDataset, uploadDataset } from '../../../app/datasets.ts';
import { MAX_DATASET_BYTES } from '../../../datasets/parse.ts';
import { inScratchFolder } from '../../../files/scratch.ts';
import { PROBLEM_CODES } from '../../../print/vdp/check.ts';
import { labelIdOf, metadataOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { HttpProblem } from '../../problem.ts';
import { apiKeySecurity, count, instant, problems, sha256Hex } from '../../schemas/common.ts';

const tags = ['Administrator API', 'Integrator API'];
const TYPES = { 'text/csv': 'csv', 'application/x-ndjson': 'ndjson' } as const;
const params = z.object({ datasetId: z.uuid({ message: 'must be a UUID' }) }).strict();

const uploaded = z
  .object({
    datasetId: z.uuid(),
    rows: count,
    fields: z.array(z.string()),
    sha256: sha256Hex,
  })
  .meta({ id: 'DatasetUploaded', description: 'a data set taken in: its rows are kept sealed' });

const datasetView = uploaded
  .extend({ format: z.enum(['csv', 'ndjson']), bytes: count, uploadedAt: instant })
  .meta({ id: 'Dataset', description: 'a data set: its counts and fields, never its rows' });

export const datasetCheckSchema = z
  .object({
    ok: z.boolean(),
    rows: count,
    problems: z.array(
      z
        .object({
          row: count.describe('the row (1 = the first data row); 0 for the data set as a whole'),
          field: z.string(),
          code: z.enum(PROBLEM_CODES),
          detail: z.string(),
        })
        .meta({ id: 'DatasetProblem' }),
    ),
    problemCount: count.describe('problems in all (the list holds the first 1,000)'),
  })
  .meta({ id: 'DatasetCheck', description: 'every row checked against a design' });

/**
 * The body into a file of this machine as it arrives, at most 50 MB (413 past it), and
 * `use` given that file; the file's folder is removed however it ends: taken, refused
 * past the limit, cut off by the client, or refused as invalid (and, should the process
 * die meanwhile, at the next start).
 */
function withBodyInFile<T>(request: FastifyRequest, use: (file: string) => Promise<T>): Promise<T> {
  return inScratchFolder('dataset', async (dir) =>
    use(await bodyToFile(request, path.join(dir, 'body'))),
  );
}

async function bodyToFile(request: FastifyRequest, file: string): Promise<string> {
  let bytes = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > MAX_DATASET_BYTES)
        return done(new HttpProblem(413, 'payload_too_large', 'a data set is at most 50 MB'));
      done(null, chunk);
    },
  });
  await pipeline(request.body as NodeJS.ReadableStream, limit, createWriteStream(file));
  return file;
}

/**
 * Data sets (/api/datasets), by the label's admin or its shops: taken in as CSV or NDJSON,
 * checked against a project's design, erased. Another label's are 404.
 */
export const datasetRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireKey('admin', 'integration'));
  // the body stays a stream: the route writes it to a file, an image process parses it
  app.addContentTypeParser(Object.keys(TYPES), (_request, payload, done) => done(null, payload));

  app.post(
    '/datasets',
    {
      config: { bodyTypes: Object.keys(TYPES) },
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'A data set for variable items: CSV (RFC 4180, UTF-8, a header row) or NDJSON, up to 100,000 rows and 50 MB',
        consumes: Object.keys(TYPES),
        body: z.unknown().meta({ type: 'string', format: 'binary' }),
        response: { 201: uploaded, ...problems(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const type = String(request.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase() as keyof typeof TYPES;
      const format = TYPES[type];
      if (!format)
        throw new HttpProblem(
          415,
          'unsupported_media_type',
          'send text/csv or application/x-ndjson',
        );
      const answer = await uploadDataset(
        deps.app,
        labelIdOf(request),
        format,
        (use) => withBodyInFile(request, use),
        metadataOf(request),
      );
      return reply.code(201).send(answer);
    },
  );

  app.get(
    '/datasets/:datasetId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'A data set: its rows and fields counted (never its rows)',
        params,
        response: { 200: datasetView, ...problems(401, 403, 404) },
      },
    },
    async (request) => {
      const d = await keptDataset(deps.app, labelIdOf(request), request.params.datasetId);
      return {
        datasetId: d.datasetId,
        rows: d.rows,
        fields: d.fields,
        sha256: d.sha256,
        format: d.format,
        bytes: d.bytes,
        uploadedAt: d.uploadedAt,
      };
    },
  );

  app.post(
    '/datasets/:datasetId/check',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "Every row against a project's design: fields missing, text overflowing its box, characters the font lacks, codes that cannot hold their data, images the label does not have",
        params,
        body: z.object({ projectId: z.uuid({ message: 'must be a UUID' }) }).strict(),
        response: { 200: datasetCheckSchema, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request) =>
      checkDataset(deps.app, labelIdOf(request), request.params.datasetId, request.body.projectId),
  );

  app.delete(
    '/datasets/:datasetId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Erases a data set: its key is destroyed and its rows deleted; orders keep their print files',
        params,
        response: {
          200: z
            .object({ datasetId: z.uuid(), status: z.literal('erased') })
            .meta({ id: 'DatasetErased' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      await eraseDataset(
        deps.app,
        labelIdOf(request),
        request.params.datasetId,
        metadataOf(request),
      );
      return { datasetId: request.params.datasetId, status: 'erased' as const };
    },
  );
};

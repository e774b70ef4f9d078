import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { labelImages, removeLabelImage, storeLabelImage } from '../../../app/label-images.ts';
import { IMAGE_TYPES, MAX_IMAGE_BYTES } from '../../../domain/project/design.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { HttpProblem } from '../../problem.ts';
import { apiKeySecurity, byteSize, instant, problems, sha256Hex } from '../../schemas/common.ts';

const tags = ['Administrator API'];
const nameSchema = z.string().min(1).max(128);
const storedImage = z
  .object({ name: z.string(), sha256: sha256Hex })
  .meta({ id: 'LabelImageStored', description: 'an image kept under a name of the label' });
const listedImage = z
  .object({
    name: z.string(),
    type: z.string().describe('image/png, image/jpeg, image/webp or image/svg+xml'),
    sha256: sha256Hex,
    bytes: byteSize,
    storedAt: instant,
  })
  .meta({ id: 'LabelImage' });

/** The label's images by name (/api/images), for data set rows to name: its admin key. */
export const labelImageRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const labelOf = (request: Parameters<typeof metadataOf>[0]) =>
    principalOf(request, 'admin').labelId;
  app.addContentTypeParser(
    [...IMAGE_TYPES],
    { parseAs: 'buffer', bodyLimit: MAX_IMAGE_BYTES },
    (_r, body, done) => done(null, body),
  );

  app.post(
    '/images',
    {
      bodyLimit: MAX_IMAGE_BYTES,
      config: { bodyTypes: [...IMAGE_TYPES] },
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Keeps an image under a name (a PNG, JPEG, WebP or SVG body, at most 10 MB, checked as design images are); the same name again replaces it for new sales',
        consumes: [...IMAGE_TYPES],
        querystring: z.object({ name: nameSchema }).strict(),
        body: z.instanceof(Buffer).meta({ type: 'string', format: 'binary' }),
        response: { 201: storedImage, ...problems(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      if (!Buffer.isBuffer(request.body) || request.body.length === 0)
        throw new HttpProblem(400, 'invalid_image', 'send the image as the body');
      const type = String(request.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim();
      const answer = await storeLabelImage(
        deps.app,
        labelOf(request),
        request.query.name,
        type,
        request.body,
        metadataOf(request),
      );
      return reply.code(201).send(answer);
    },
  );

  app.get(
    '/images',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The label's images by name",
        response: { 200: z.object({ images: z.array(listedImage) }), ...problems(401, 403) },
      },
    },
    async (request) => ({ images: await labelImages(deps.app, labelOf(request)) }),
  );

  app.delete(
    '/images/:name',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Takes a name off the label’s images (orders already sold keep drawing the image they were sold with)',
        params: z.object({ name: nameSchema }).strict(),
        response: {
          200: z
            .object({ name: z.string(), status: z.literal('removed') })
            .meta({ id: 'LabelImageRemoved' }),
          ...problems(401, 403, 404),
        },
      },
    },
    async (request) => {
      await removeLabelImage(deps.app, labelOf(request), request.params.name, metadataOf(request));
      return { name: request.params.name, status: 'removed' as const };
    },
  );
};

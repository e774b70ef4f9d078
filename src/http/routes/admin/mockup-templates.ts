import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  deleteTemplate,
  getTemplate,
  putTemplate,
  templatesOfLabel,
} from '../../../app/mockup-templates.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { PROJECT_BODY_LIMIT } from '../../limits.ts';
import { apiKeySecurity, problems } from '../../schemas/common.ts';
import {
  templateBody,
  templateIdSchema,
  templateParams,
  templateSchema,
  toTemplate,
} from '../../schemas/mockup.ts';

const tags = ['Administrator API'];

/** The label's mockup templates: a product photo and where each print area lies on it. */
export const mockupTemplateRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const label = (request: Parameters<typeof principalOf>[0]) =>
    principalOf(request, 'admin').labelId;

  app.get(
    '/mockup-templates',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The label's mockup templates, by id",
        response: { 200: z.array(templateSchema), ...problems(401, 403) },
      },
    },
    async (request) => (await templatesOfLabel(deps.app, label(request))).map(toTemplate),
  );

  app.put(
    '/mockup-templates/:templateId',
    {
      bodyLimit: PROJECT_BODY_LIMIT,
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Set a mockup template (a new revision when it changed; mockups drawn before keep theirs)',
        params: templateParams,
        body: templateBody,
        response: { 200: templateSchema, ...problems(400, 401, 403, 409, 413, 415, 429) },
      },
    },
    async (request) =>
      toTemplate(
        await putTemplate(
          deps.app,
          label(request),
          request.params.templateId,
          request.body,
          metadataOf(request),
        ),
      ),
  );

  app.get(
    '/mockup-templates/:templateId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'One mockup template',
        params: templateParams,
        response: { 200: templateSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) =>
      toTemplate(await getTemplate(deps.app, label(request), request.params.templateId)),
  );

  app.delete(
    '/mockup-templates/:templateId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Delete a mockup template (recorded mockups stay)',
        params: templateParams,
        response: {
          200: z
            .object({ templateId: templateIdSchema, deleted: z.literal(true) })
            .meta({ id: 'MockupTemplateDeleted' }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) =>
      deleteTemplate(deps.app, label(request), request.params.templateId, metadataOf(request)),
  );
};

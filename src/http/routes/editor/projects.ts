import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { addCartItem, createProject, getProject, updateProject } from '../../../app/projects.ts';
import { metadataOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { requireEditorSession, sessionOf } from '../../editor-auth.ts';
import { PROJECT_BODY_LIMIT } from '../../limits.ts';
import { idParams, problems } from '../../schemas/common.ts';
import { projectBody, projectSchema } from '../../schemas/project.ts';
import { projectMockupRoutes } from '../project-mockups.ts';

const tags = ['Editor'];
const security = [{ editorToken: [] }];

/** What the editor needs: a logged-in user's projects and cart. */
export const editorProjectRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  app.decorateRequest('editorSession', null);
  app.addHook('onRequest', requireEditorSession(deps));
  await app.register(projectMockupRoutes, {
    deps,
    base: '/editor',
    accessOf: (request) => {
      const { labelId, userRef } = sessionOf(request);
      return { labelId, userRef };
    },
    tags,
    security,
    refusals: [401],
  });

  app.post(
    '/projects',
    {
      bodyLimit: PROJECT_BODY_LIMIT,
      schema: {
        tags,
        security,
        summary: 'Save a new project (a design for a product configuration)',
        body: projectBody,
        response: { 201: projectSchema, ...problems(400, 401, 409, 413, 415, 429) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createProject(deps.app, sessionOf(request), request.body, metadataOf(request))),
  );

  app.put(
    '/projects/:id',
    {
      bodyLimit: PROJECT_BODY_LIMIT,
      schema: {
        tags,
        security,
        summary: 'Replace a project of the logged-in user',
        params: idParams,
        body: projectBody,
        response: { 200: projectSchema, ...problems(400, 401, 404, 413, 415, 429) },
      },
    },
    async (request) =>
      updateProject(
        deps.app,
        sessionOf(request),
        request.params.id,
        request.body,
        metadataOf(request),
      ),
  );

  app.get(
    '/projects/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Read a project of the logged-in user',
        params: idParams,
        response: { 200: projectSchema, ...problems(400, 401, 404) },
      },
    },
    async (request) => getProject(deps.app, sessionOf(request), request.params.id),
  );

  app.post(
    '/cart',
    {
      schema: {
        tags,
        security,
        summary: 'Put a saved project into the shopping cart',
        body: z
          .object({
            projectId: z.uuid({ message: 'must be a UUID' }),
            quantity: z.number().int().min(1).max(1_000_000),
          })
          .strict()
          .meta({ id: 'NewCartItem' }),
        response: {
          201: z.object({ id: z.uuid() }).meta({ id: 'CartItemCreated' }),
          ...problems(400, 401, 415),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await addCartItem(deps.app, sessionOf(request), request.body, metadataOf(request))),
  );
};

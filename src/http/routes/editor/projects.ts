import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findProject } from '../../../../projections/projects.ts';
import { inlineDesignImages } from '../../../app/images.ts';
import { addCartItem, createProject, updateProject } from '../../../app/projects.ts';
import { type HttpDeps, readYourWrite } from '../../deps.ts';
import { requireEditorSession, sessionOf } from '../../editor-auth.ts';
import { PROJECT_BODY_LIMIT } from '../../limits.ts';
import { HttpProblem } from '../../problem.ts';
import { idParams, problems } from '../../schemas/common.ts';
import { projectBody, projectSchema } from '../../schemas/project.ts';

const tags = ['Editor'];
const security = [{ editorToken: [] }];

/** What the editor needs: a logged-in user's projects and cart. */
export const editorProjectRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  app.decorateRequest('editorSession', null);
  app.addHook('onRequest', requireEditorSession(deps));
  const meta = (s: { labelId: string; userRef: string }, correlationId: string) => ({
    labelId: s.labelId,
    actor: `user:${s.userRef}`,
    correlationId,
  });
  const read = async (s: { labelId: string; userRef: string }, id: string) => {
    const view = await findProject(deps.pool, s.labelId, s.userRef, id);
    if (!view) throw new HttpProblem(404, 'project_not_found', 'project not found');
    // clients get the design as they sent it: images as data URLs
    return { ...view, design: await inlineDesignImages(deps.images, view.design) };
  };

  app.post(
    '/projects',
    {
      bodyLimit: PROJECT_BODY_LIMIT,
      schema: {
        tags,
        security,
        summary: 'Save a new project (a design for a product configuration)',
        body: projectBody,
        response: { 201: projectSchema, ...problems(400, 401, 413, 415) },
      },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      const { projectId, appended } = await createProject(
        deps.store,
        deps.pool,
        deps.images,
        s,
        request.body,
        meta(s, request.id),
      );
      await readYourWrite(deps, 'projects', appended.position);
      return reply.status(201).send(await read(s, projectId));
    },
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
        response: { 200: projectSchema, ...problems(400, 401, 404, 413, 415) },
      },
    },
    async (request) => {
      const s = sessionOf(request);
      const appended = await updateProject(
        deps.store,
        deps.pool,
        deps.images,
        s,
        request.params.id,
        request.body,
        meta(s, request.id),
      );
      await readYourWrite(deps, 'projects', appended.position);
      return read(s, request.params.id);
    },
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
    async (request) => read(sessionOf(request), request.params.id),
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
          .strict(),
        response: { 201: z.object({ id: z.uuid() }), ...problems(400, 401, 415) },
      },
    },
    async (request, reply) => {
      const s = sessionOf(request);
      const { cartItemId, appended } = await addCartItem(
        deps.store,
        s,
        request.body,
        meta(s, request.id),
      );
      await readYourWrite(deps, 'projects', appended.position);
      return reply.status(201).send({ id: cartItemId });
    },
  );
};

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type MockupRequest,
  PROJECT_MOCKUP_NAME,
  type ProjectAccess,
  projectMockupImage,
  projectMockups,
} from '../../app/mockups.ts';
import type { HttpDeps } from '../deps.ts';
import { sendImage } from '../image-reply.ts';
import { responseHeaders } from '../openapi/document.ts';
import { idParams, problems } from '../schemas/common.ts';
import {
  mockupImage,
  mockupRequestBody,
  mockupStatusQuery,
  mockupsPendingSchema,
  projectMockupsSchema,
} from '../schemas/mockup.ts';

const imageParams = idParams.extend({
  name: z.string().regex(PROJECT_MOCKUP_NAME, 'is not the name of a mockup'),
});

/**
 * A project's mockups before the sale, for the editor (its user's projects) and for the
 * label's admin (any of the label's): drawn on POST (201, or 202 with a status URL when
 * the drawing takes longer than MOCKUP_WAIT_MS), the status read with GET, each image
 * behind its URL. The two differ only in who may ask (`accessOf`).
 */
export const projectMockupRoutes: FastifyPluginAsyncZod<{
  deps: HttpDeps;
  /** the path prefix the routes answer under, for the URLs they give */
  base: string;
  accessOf: (request: FastifyRequest) => ProjectAccess;
  tags: string[];
  security: { [scheme: string]: string[] }[];
  /** what a refused key answers: 401, and 403 where a key of another kind is refused */
  refusals: number[];
}> = async (app, { deps, base, accessOf, tags, security, refusals }) => {
  const answer = async (
    request: FastifyRequest,
    reply: FastifyReply,
    projectId: string,
    wanted: MockupRequest,
    drawnStatus: 200 | 201,
  ) => {
    const r = await projectMockups(
      deps.app,
      accessOf(request),
      projectId,
      wanted,
      deps.config.mockupWaitMs,
    );
    if (!r.ready) {
      const query = new URLSearchParams({
        ...(wanted.templateId ? { templateId: wanted.templateId } : {}),
        format: wanted.format,
        width: String(wanted.width),
      });
      const statusUrl = `${base}/projects/${projectId}/mockups?${query}`;
      return reply
        .status(202)
        .header('location', statusUrl)
        .send({ projectId, status: 'drawing' as const, statusUrl });
    }
    return reply.status(drawnStatus).send({
      projectId,
      projectRevision: r.revision,
      mockups: r.mockups.map(({ name, ...m }) => ({
        ...m,
        url: `${base}/projects/${projectId}/mockups/${name}`,
      })),
    });
  };

  app.post(
    '/projects/:id/mockups',
    {
      schema: {
        tags,
        security,
        summary:
          "The project's mockups: its design on the label's product photos, drawn from the print file it would make",
        params: idParams,
        body: mockupRequestBody.nullish(),
        response: {
          201: projectMockupsSchema,
          202: mockupsPendingSchema,
          ...problems(400, ...refusals, 404, 415, 429, 503),
        },
        ...responseHeaders({ 202: ['location'] }),
      },
    },
    async (request, reply) =>
      answer(request, reply, request.params.id, mockupRequestBody.parse(request.body ?? {}), 201),
  );

  app.get(
    '/projects/:id/mockups',
    {
      schema: {
        tags,
        security,
        summary: "The project's mockups once drawn (200), or still drawing (202)",
        params: idParams,
        querystring: mockupStatusQuery,
        response: {
          200: projectMockupsSchema,
          202: mockupsPendingSchema,
          ...problems(400, ...refusals, 404, 429, 503),
        },
        ...responseHeaders({ 202: ['location'] }),
      },
    },
    async (request, reply) => answer(request, reply, request.params.id, request.query, 200),
  );

  app.get(
    '/projects/:id/mockups/:name',
    {
      schema: {
        tags,
        security,
        summary: 'One mockup of the project, as drawn',
        params: imageParams,
        response: { 200: mockupImage, ...problems(400, ...refusals, 404) },
        ...responseHeaders({ 200: ['cache-control'] }),
      },
    },
    async (request, reply) => {
      const image = await projectMockupImage(
        deps.app,
        accessOf(request),
        request.params.id,
        request.params.name,
      );
      return sendImage(reply, image.contentType, image.bytes);
    },
  );
};

import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deletePartnerUser, rekeyPartnerUser, userProjects } from '../../../app/partner-users.ts';
import { deleteProject, removeCartItem } from '../../../app/projects.ts';
import { partnerUserIdSchema } from '../../../domain/partner-user/events.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, count, idParams, problems } from '../../schemas/common.ts';
import { projectSummarySchema } from '../../schemas/project.ts';

const tags = ['Administrator API'];
const deletedAnswer = z.object({ id: z.uuid(), deleted: z.literal(true) }).meta({ id: 'Deleted' });

export const userProjectRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const label = (request: Parameters<typeof principalOf>[0]) =>
    principalOf(request, 'admin').labelId;
  const userIdQuery = z.object({ userId: partnerUserIdSchema }).strict();

  app.put(
    '/partner/user',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "Give a user a new identifier; the user's projects and cart follow",
        body: z
          .object({ userId: partnerUserIdSchema, newUserId: partnerUserIdSchema })
          .strict()
          .meta({ id: 'UserIdChange', example: { userId: 'u-1001', newUserId: 'crm-77' } }),
        response: {
          200: z
            .object({ userId: z.string(), projects: count.describe('the projects that followed') })
            .meta({ id: 'UserIdChanged' }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) =>
      rekeyPartnerUser(
        deps.app,
        label(request),
        request.body.userId,
        request.body.newUserId,
        metadataOf(request),
      ),
  );

  app.delete(
    '/partner/user',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Delete a user: personal data made unreadable everywhere, projects and cart removed',
        querystring: userIdQuery,
        response: {
          200: z
            .object({ userId: z.string(), deleted: z.literal(true) })
            .meta({ id: 'UserDeleted' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      deletePartnerUser(deps.app, label(request), request.query.userId, metadataOf(request)),
  );

  app.get(
    '/partner/user/products',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "A user's projects",
        querystring: userIdQuery.extend({
          limit: z.coerce.number().int().min(1).max(100).default(20),
          offset: z.coerce.number().int().min(0).max(2_147_483_647).default(0),
        }),
        response: { 200: z.array(projectSummarySchema), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { userId, ...page } = request.query;
      return userProjects(deps.app, label(request), userId, page);
    },
  );

  /** A DELETE by id whose command's events the projects read model shows (projects, cart). */
  const deleteById = (
    path: string,
    summary: string,
    remove: typeof deleteProject | typeof removeCartItem,
  ) =>
    app.delete(
      path,
      {
        schema: {
          tags,
          security: apiKeySecurity,
          summary,
          params: idParams,
          response: {
            200: deletedAnswer,
            ...problems(400, 401, 403, 404),
          },
        },
      },
      async (request) => remove(deps.app, label(request), request.params.id, metadataOf(request)),
    );
  deleteById('/product/:id', 'Delete a project created by a user', deleteProject);
  deleteById('/shoppingcartitem/:id', 'Delete a shopping cart item', removeCartItem);
};

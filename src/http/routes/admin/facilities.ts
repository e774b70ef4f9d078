import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  getFacility,
  listFacilities,
  pauseFacility,
  registerFacility,
  resumeFacility,
  updateFacility,
} from '../../../app/facilities.ts';
import { moveItem } from '../../../app/routing.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity, idParams, problems } from '../../schemas/common.ts';
import {
  facilityBody,
  facilitySchema,
  facilityWithKeySchema,
  pauseBody,
  routeBody,
  routedSchema,
  toFacility,
} from '../../schemas/facility.ts';

const tags = ['Administrator API'];

/** A label's production facilities, and moving an item between them by hand (admin key). */
export const facilityRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const label = (request: Parameters<typeof principalOf>[0]) =>
    principalOf(request, 'admin').labelId;

  app.post(
    '/facilities',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Register a production facility: what it can make, how much a day, when it works',
        body: facilityBody,
        response: { 201: facilityWithKeySchema, ...problems(400, 401, 403, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { facility, fulfillmentApiKey } = await registerFacility(
        deps.app,
        label(request),
        request.body,
        metadataOf(request),
      );
      return reply.status(201).send({ ...toFacility(facility), fulfillmentApiKey });
    },
  );

  app.get(
    '/facilities',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The label's facilities, oldest first",
        response: { 200: z.array(facilitySchema), ...problems(401, 403) },
      },
    },
    async (request) => (await listFacilities(deps.app, label(request))).map(toFacility),
  );

  app.get(
    '/facilities/:id',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'One facility',
        params: idParams,
        response: { 200: facilitySchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => toFacility(await getFacility(deps.app, label(request), request.params.id)),
  );

  app.put(
    '/facilities/:id',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "Change a facility's settings (all of them, as they are from now on)",
        params: idParams,
        body: facilityBody,
        response: { 200: facilitySchema, ...problems(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      toFacility(
        await updateFacility(
          deps.app,
          label(request),
          request.params.id,
          request.body,
          metadataOf(request),
        ),
      ),
  );

  app.post(
    '/facilities/:id/pause',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Pause a facility: nothing new is routed there, and its items not yet batched or printed are routed elsewhere',
        params: idParams,
        body: pauseBody,
        response: { 200: facilitySchema, ...problems(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) =>
      toFacility(
        await pauseFacility(
          deps.app,
          label(request),
          request.params.id,
          request.body?.reason,
          metadataOf(request),
        ),
      ),
  );

  app.post(
    '/facilities/:id/resume',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Resume a paused facility (items waiting as unroutable are routed again)',
        params: idParams,
        response: { 200: facilitySchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) =>
      toFacility(
        await resumeFacility(deps.app, label(request), request.params.id, metadataOf(request)),
      ),
  );

  app.post(
    '/orderitems/:id/route',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Move an item to a facility by hand, with the reason (kept in the history with who did it); 409 once it is on the press',
        params: idParams,
        body: routeBody,
        response: { 200: routedSchema, ...problems(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request) =>
      moveItem(
        deps.app,
        label(request),
        request.params.id,
        request.body.facilityId,
        request.body.reason,
        metadataOf(request),
      ),
  );
};

import type { FastifyPluginAsync } from 'fastify';
import type { HttpDeps } from '../../deps.ts';
import { offeringRoutes } from './offerings.ts';

/** Shop integrator API: an integration key; the label is the integration's. */
export const integratorApi: FastifyPluginAsync<{ deps: HttpDeps }> = async (app, { deps }) => {
  await app.register(offeringRoutes, { deps, prefix: '/api/offering' });
};

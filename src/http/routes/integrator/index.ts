import type { FastifyPluginAsync } from 'fastify';
import type { HttpDeps } from '../../deps.ts';
import { shopNotifyRoutes } from '../orders/notify.ts';
import { offeringRoutes } from './offerings.ts';

/** Shop integrator API: an integration key; the label is the integration's. */
export const integratorApi: FastifyPluginAsync<{ deps: HttpDeps }> = async (app, { deps }) => {
  await app.register(offeringRoutes, { deps, prefix: '/api/offering' });
  // one handler, two paths: both are published
  await app.register(shopNotifyRoutes, { deps, prefix: '/webhook' });
  await app.register(shopNotifyRoutes, { deps, prefix: '/api' });
};

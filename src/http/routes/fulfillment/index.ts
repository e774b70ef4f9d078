import type { FastifyPluginAsync } from 'fastify';
import type { HttpDeps } from '../../deps.ts';
import { fulfillmentNotifyRoutes } from '../orders/notify.ts';
import { batchRoutes } from './batches.ts';
import { printshopSkuRoutes } from './printshop-sku.ts';
import { productionRoutes } from './production.ts';

/** Order fulfillment API, version v1. */
export const fulfillmentApi: FastifyPluginAsync<{ deps: HttpDeps }> = async (app, { deps }) => {
  await app.register(printshopSkuRoutes, { deps, prefix: '/api/printshop' });
  await app.register(fulfillmentNotifyRoutes, { deps });
  await app.register(productionRoutes, { deps });
  await app.register(batchRoutes, { deps });
};

import type { FastifyPluginAsync } from 'fastify';
import { principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { apiKeySecurity } from '../../schemas/common.ts';
import { orderAdminRoutes } from '../orders/admin.ts';
import { recipientRoutes } from '../orders/recipient.ts';
import { printSettingsRoutes } from '../print-settings.ts';
import { projectMockupRoutes } from '../project-mockups.ts';
import { approvalPolicyRoutes } from './approvals.ts';
import { batchingRoutes } from './batching.ts';
import { brandingRoutes } from './branding.ts';
import { facilityRoutes } from './facilities.ts';
import { labelImageRoutes } from './label-images.ts';
import { mockupTemplateRoutes } from './mockup-templates.ts';
import { priceRoutes } from './prices.ts';
import { shopIntegrationRoutes } from './shop-integrations.ts';
import { userProjectRoutes } from './users-projects.ts';
import { webhookRoutes } from './webhooks.ts';

/** Administrator API (/api): the admin key of one label; everything is scoped to that label. */
export const adminApi: FastifyPluginAsync<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireKey('admin'));
  await app.register(shopIntegrationRoutes, { deps });
  await app.register(webhookRoutes, { deps });
  await app.register(priceRoutes, { deps });
  await app.register(brandingRoutes, { deps });
  await app.register(labelImageRoutes, { deps });
  await app.register(batchingRoutes, { deps });
  await app.register(approvalPolicyRoutes, { deps });
  await app.register(userProjectRoutes, { deps });
  await app.register(orderAdminRoutes, { deps });
  await app.register(recipientRoutes, { deps });
  await app.register(facilityRoutes, { deps });
  await app.register(mockupTemplateRoutes, { deps });
  await app.register(projectMockupRoutes, {
    deps,
    base: '/api',
    accessOf: (request) => ({ labelId: principalOf(request, 'admin').labelId }),
    tags: ['Administrator API'],
    security: apiKeySecurity,
    refusals: [401, 403],
  });
  await app.register(printSettingsRoutes, {
    deps,
    path: '/print-settings',
    params: undefined,
    labelOf: (request) => principalOf(request, 'admin').labelId,
    tags: ['Administrator API'],
  });
};

import { auditTreeProjection } from './audit-tree.ts';
import { batchesProjection } from './batches.ts';
import { datasetsProjection } from './datasets.ts';
import { facilitiesProjection, facilityLoadsProjection } from './facilities.ts';
import { imageRefsProjection } from './image-refs.ts';
import { importsProjection } from './imports.ts';
import { labelsProjection } from './labels.ts';
import { mockupsProjection } from './mockups.ts';
import { offeringsProjection } from './offerings.ts';
import { opsSessionsProjection } from './ops-sessions.ts';
import { ordersProjection } from './orders.ts';
import { partnerUsersProjection } from './partner-users.ts';
import { pricesProjection } from './prices.ts';
import type { Projection } from './projection.ts';
import { projectsProjection } from './projects.ts';
import { shopIntegrationsProjection } from './shop-integrations.ts';
import { webhookQueueProjection } from './webhook-queue.ts';
import { webhooksProjection } from './webhooks.ts';

export const allProjections: Projection[] = [
  labelsProjection,
  shopIntegrationsProjection,
  offeringsProjection,
  importsProjection,
  pricesProjection,
  partnerUsersProjection,
  projectsProjection,
  ordersProjection,
  imageRefsProjection,
  webhooksProjection,
  webhookQueueProjection,
  opsSessionsProjection,
  batchesProjection,
  mockupsProjection,
  facilitiesProjection,
  facilityLoadsProjection,
  auditTreeProjection,
  datasetsProjection,
];

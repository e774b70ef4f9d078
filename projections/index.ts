import { labelsProjection } from './labels.ts';
import type { Projection } from './projection.ts';
import { shopIntegrationsProjection } from './shop-integrations.ts';

export const allProjections: Projection[] = [labelsProjection, shopIntegrationsProjection];

import { z } from 'zod';
import { count, instant } from './common.ts';

export const importViewSchema = z
  .object({
    importId: z.uuid(),
    kind: z.enum(['catalog', 'printshop-skus']),
    supplier: z.string(),
    status: z
      .enum(['running', 'completed'])
      .describe('completed once every configuration of the import can be found and used'),
    total: count,
    groups: count.optional(),
    processed: count,
    created: count,
    skipped: z.array(
      z
        .object({ sku: z.string(), reason: z.string() })
        .meta({ id: 'SkippedSku', description: 'a configuration the import left out, and why' }),
    ),
    requestedAt: instant,
    completedAt: instant.optional(),
  })
  .meta({ id: 'ImportProgress' });

import { z } from 'zod';

export const importViewSchema = z.object({
  importId: z.uuid(),
  kind: z.string(),
  supplier: z.string(),
  status: z.enum(['running', 'completed']),
  total: z.number().int(),
  groups: z.number().int().optional(),
  processed: z.number().int(),
  created: z.number().int(),
  skipped: z.array(z.object({ sku: z.string(), reason: z.string() })),
  requestedAt: z.string(),
  completedAt: z.string().optional(),
});

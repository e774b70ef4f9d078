import { z } from 'zod';
import { skuSchema } from '../../domain/product/configuration.ts';
import { designSchema } from '../../domain/project/design.ts';
import { instant } from './common.ts';

export const projectBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    sku: skuSchema,
    supplier: z.string().min(1).max(100),
    design: designSchema,
  })
  .strict()
  .meta({
    id: 'ProjectContent',
    example: {
      name: 'Team mug',
      sku: 'MUG-CL-WHITE',
      supplier: 'printshop',
      design: {
        areas: [
          {
            printArea: 'FRONT',
            layers: [{ type: 'text', text: 'Hello', x: 5, y: 40, fontSize: 12, color: '#1a2b3c' }],
          },
        ],
      },
    },
  });

export const projectSummarySchema = z
  .object({
    id: z.uuid(),
    userId: z.string(),
    name: z.string(),
    sku: z.string(),
    supplier: z.string(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'ProjectSummary' });

export const projectSchema = projectSummarySchema
  .extend({ design: designSchema })
  .meta({ id: 'Project' });

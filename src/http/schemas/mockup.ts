import { z } from 'zod';
import type { TemplateRow } from '#projections/mockups';
import { DEFAULT_MOCKUP_WIDTH, MAX_MOCKUP_WIDTH } from '../../app/mockups.ts';
import { byteSize, instant, sha256Hex } from './common.ts';

export const templateIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
    'must be 1-100 letters, digits, dots, dashes or underscores, starting with a letter or digit',
  );
export const templateParams = z.object({ templateId: templateIdSchema }).strict();

const coordinate = z.number().min(-1_000_000).max(1_000_000);
// fixed-length arrays rather than tuples: tuples become prefixItems, which client generators miss
const point = z.array(coordinate).length(2).describe('[x, y]');
const quad = z.array(point).length(4);
const dataUrl = (what: string) =>
  z.string().max(15_000_000).describe(`${what} as a base64 data URL`);

const matchSchema = z
  .union([
    z.object({ sku: z.string().min(1).max(100) }).strict(),
    z
      .object({
        baseSKU: z.string().min(1).max(100),
        productColor: z.string().min(1).max(100).optional(),
      })
      .strict(),
  ])
  .meta({
    id: 'MockupTemplateMatch',
    description: 'the product configurations it is for: one SKU, or a base SKU (in one colour)',
  });

export const templateBody = z
  .object({
    match: matchSchema,
    photo: dataUrl('the product photo, PNG or JPEG, at most 10 MB and 40 megapixels,'),
    areas: z
      .array(
        z
          .object({
            printArea: z.string().min(1).max(50).describe('a print area code of the product'),
            corners: quad.describe(
              'where the print area lies on the photo, in pixels: four corners clockwise from the top-left, a convex quad',
            ),
            blend: z
              .enum(['multiply', 'normal'])
              .describe(
                'multiply: the photo’s shading shows through the design; normal: laid over it',
              ),
            mask: dataUrl(
              'a PNG of the photo’s size: white shows the design, black hides it,',
            ).optional(),
          })
          .strict()
          .meta({ id: 'MockupTemplateAreaSpec' }),
      )
      .min(1)
      .max(20),
  })
  .strict()
  .meta({ id: 'MockupTemplateSpec' });

const storedImage = z.object({ sha256: sha256Hex, type: z.string() });

export const templateSchema = z
  .object({
    templateId: templateIdSchema,
    revision: z
      .number()
      .int()
      .min(1)
      .max(2_147_483_647)
      .describe('one more for each change: mockups name the revision they show'),
    match: matchSchema,
    photo: storedImage.extend({
      width: z.number().int().min(1).max(100_000),
      height: z.number().int().min(1).max(100_000),
    }),
    areas: z.array(
      z
        .object({
          printArea: z.string(),
          corners: quad,
          blend: z.enum(['multiply', 'normal']),
          mask: storedImage.optional(),
        })
        .meta({ id: 'MockupTemplateArea' }),
    ),
    updatedAt: instant,
  })
  .meta({ id: 'MockupTemplate' });

export const toTemplate = (t: TemplateRow): z.infer<typeof templateSchema> => ({
  templateId: t.template_id,
  revision: t.revision,
  ...t.content,
  updatedAt: t.set_at.toISOString(),
});

const format = z.enum(['png', 'jpeg']);
const width = z.number().int().min(16).max(MAX_MOCKUP_WIDTH);
export const mockupRequestBody = z
  .object({
    templateId: templateIdSchema
      .optional()
      .describe('one template; every matching one when absent'),
    format: format.default('png'),
    width: width.default(DEFAULT_MOCKUP_WIDTH).describe('the image’s width in pixels'),
  })
  .strict()
  .meta({ id: 'MockupRequest' });
export const mockupStatusQuery = z
  .object({
    templateId: templateIdSchema.optional(),
    format: format.default('png'),
    width: z.coerce.number().pipe(width).default(DEFAULT_MOCKUP_WIDTH),
  })
  .strict();

export const projectMockupsSchema = z
  .object({
    projectId: z.uuid(),
    projectRevision: z.number().int().min(1).max(2_147_483_647),
    mockups: z.array(
      z
        .object({
          templateId: templateIdSchema,
          templateRevision: z.number().int().min(1).max(2_147_483_647),
          format,
          width: z.number().int().min(1).max(MAX_MOCKUP_WIDTH),
          height: z.number().int().min(1).max(1_000_000),
          sha256: sha256Hex,
          bytes: byteSize,
          url: z.string().describe('the image (GET with the same credentials)'),
        })
        .meta({ id: 'ProjectMockup' }),
    ),
  })
  .meta({ id: 'ProjectMockups' });

export const mockupsPendingSchema = z
  .object({
    projectId: z.uuid(),
    status: z.literal('drawing'),
    statusUrl: z.string().describe('GET it until it answers 200 with the mockups'),
  })
  .meta({ id: 'ProjectMockupsPending' });

export const orderItemMockupsSchema = z
  .array(
    z
      .object({
        templateId: z.string(),
        templateRevision: z.number().int().min(1).max(2_147_483_647),
        printFileSha256: sha256Hex.describe('the print file it shows'),
        sha256: sha256Hex,
        bytes: byteSize,
        format,
        width: z.number().int().min(1).max(MAX_MOCKUP_WIDTH),
        height: z.number().int().min(1).max(1_000_000),
        renderedAt: instant,
        download: z.string().describe('the image (GET with the admin key)'),
      })
      .meta({ id: 'OrderItemMockup' }),
  )
  .meta({ id: 'OrderItemMockups' });

/** An image answer: PNG or JPEG bytes. */
export const mockupImage = {
  description: 'the mockup, PNG or JPEG',
  content: {
    'image/png': { schema: z.string().meta({ format: 'binary' }) },
    'image/jpeg': { schema: z.string().meta({ format: 'binary' }) },
  },
};

import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

/** Which product configurations a template is for: one SKU, or a base SKU (in one colour). */
export const templateMatchSchema = z.union([
  z.object({ sku: z.string() }).strict(),
  z.object({ baseSKU: z.string(), productColor: z.string().optional() }).strict(),
]);
export type TemplateMatch = z.infer<typeof templateMatchSchema>;

const storedImage = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), type: z.string() });
const point = z.tuple([z.number(), z.number()]);

export const templateAreaSchema = z.object({
  printArea: z.string(),
  corners: z.tuple([point, point, point, point]),
  blend: z.enum(['multiply', 'normal']),
  mask: storedImage.optional(),
});

/** The template as recorded: its photo and masks by reference into the image store. */
export const templateContentSchema = z.object({
  match: templateMatchSchema,
  photo: storedImage.extend({ width: z.number().int(), height: z.number().int() }),
  areas: z.array(templateAreaSchema),
});
export type TemplateContent = z.infer<typeof templateContentSchema>;

/** The images a template refers to (sha256 of its photo and masks). */
export const templateImages = (t: TemplateContent): string[] => [
  ...new Set([t.photo.sha256, ...t.areas.flatMap((a) => (a.mask ? [a.mask.sha256] : []))]),
];

export const MockupTemplateSet = defineEvent(
  'MockupTemplateSet',
  1,
  templateContentSchema.extend({
    labelId: z.uuid(),
    templateId: z.string(),
    /** 1 for the first content, one more for each change: mockups name the one they show */
    revision: z.number().int().min(1),
    setAt: z.iso.datetime(),
  }),
);

export const MockupTemplateDeleted = defineEvent(
  'MockupTemplateDeleted',
  1,
  z.object({ labelId: z.uuid(), templateId: z.string(), deletedAt: z.iso.datetime() }),
);

export type MockupTemplateEvent =
  | EventOf<typeof MockupTemplateSet>
  | EventOf<typeof MockupTemplateDeleted>;
export const mockupTemplateEvents = new EventRegistry<MockupTemplateEvent>([
  MockupTemplateSet,
  MockupTemplateDeleted,
]);
export const mockupTemplateStream = (labelId: string, templateId: string) =>
  `MockupTemplate-${labelId}-${templateId}`;

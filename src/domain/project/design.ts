import { z } from 'zod';

/** Images inline as data URLs: PNG, JPEG, WebP or SVG, at most 10 MB decoded. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'] as const;
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const DATA_URL = /^data:(image\/(?:png|jpeg|webp|svg\+xml));base64,([A-Za-z0-9+/]+={0,2})$/;

/**
 * Events keep an image as a reference into the image store, `image:<type>;sha256,<hex>`,
 * not as its megabytes: the same bytes come back for every render and replay.
 */
const IMAGE_REF = /^image:(image\/(?:png|jpeg|webp|svg\+xml));sha256,([0-9a-f]{64})$/;
export const imageRef = (type: string, sha256: string) => `image:${type};sha256,${sha256}`;
export function parseImageRef(src: string): { type: string; sha256: string } | undefined {
  const m = IMAGE_REF.exec(src);
  return m ? { type: m[1]!, sha256: m[2]! } : undefined;
}

export function parseDataUrl(src: string): { type: string; bytes: Buffer } | undefined {
  const m = DATA_URL.exec(src);
  if (!m) return undefined;
  return { type: m[1]!, bytes: Buffer.from(m[2]!, 'base64') };
}

const mm = z.number().min(-10_000).max(10_000);
const size = z.number().positive().max(10_000);

export const imageLayerSchema = z
  .object({
    type: z.literal('image'),
    src: z
      .string()
      .max(Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 64, 'an image is at most 10 MB')
      .refine((s) => DATA_URL.test(s), 'a base64 data URL of a PNG, JPEG, WebP or SVG image'),
    x: mm,
    y: mm,
    width: size,
    height: size,
    rotation: z.number().min(-360).max(360).default(0),
  })
  .strict()
  .meta({
    id: 'ImageLayer',
    description: 'an image placed on the print area (mm, degrees clockwise)',
  });

export const textLayerSchema = z
  .object({
    type: z.literal('text'),
    text: z.string().min(1).max(2000),
    x: mm,
    y: mm,
    fontSize: z.number().positive().max(1000),
    color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour such as #1a2b3c'),
  })
  .strict()
  .meta({ id: 'TextLayer', description: 'a line of text (DejaVu Sans; size in points)' });

/** A spot colour the design names, for products printed with inks (screen, pad, engraving). */
export const inkSchema = z
  .object({
    color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour such as #c8102e'),
    name: z
      .string()
      .min(1)
      .max(63)
      .regex(/^[\x20-\x7e]+$/, 'printable ASCII, e.g. PANTONE 186 C'),
  })
  .strict()
  .meta({ id: 'Ink', description: 'a spot colour the design names' });

/** A layer of a design: an image or a text, told apart by `type`. */
export const layerSchema = z.discriminatedUnion('type', [imageLayerSchema, textLayerSchema]).meta({
  id: 'Layer',
  discriminator: {
    propertyName: 'type',
    mapping: { image: '#/components/schemas/ImageLayer', text: '#/components/schemas/TextLayer' },
  },
});

export const designSchema = z
  .object({
    /** named spot colours: a design colour near one of them prints as that ink */
    inks: z.array(inkSchema).max(16).optional(),
    areas: z
      .array(
        z
          .object({
            printArea: z.string().min(1).max(50),
            layers: z.array(layerSchema).max(100),
          })
          .strict()
          .meta({ id: 'DesignArea', description: "what goes on one of the product's print areas" }),
      )
      .min(1)
      .max(50),
  })
  .strict()
  .meta({ id: 'Design' });

export type Design = z.infer<typeof designSchema>;

/**
 * The design as events store it. It was checked with designSchema at the edge before
 * any event was written; reading it back does not scan megabytes of image data again
 * (a full check of a 3 MB data URL costs ~14 ms, and every fold would pay it).
 */
export const storedDesignSchema = z.object({
  inks: z.array(inkSchema).optional(),
  areas: z.array(
    z.object({
      printArea: z.string(),
      layers: z.array(
        z.discriminatedUnion('type', [
          imageLayerSchema.extend({ src: z.string() }),
          textLayerSchema,
        ]),
      ),
    }),
  ),
});
export type Layer = Design['areas'][number]['layers'][number];

/**
 * The extent of a layer in millimetres from the area's top left. Text is measured
 * roughly (0.6 em per character, 1 em high; 1 pt = 0.3528 mm): enough to tell a layer
 * that lies wholly outside its area.
 */
export function layerBox(layer: Layer): { x: number; y: number; width: number; height: number } {
  if (layer.type === 'image')
    return { x: layer.x, y: layer.y, width: layer.width, height: layer.height };
  const em = layer.fontSize * 0.3528;
  return { x: layer.x, y: layer.y, width: em * 0.6 * layer.text.length, height: em };
}

/** A layer as people name it: "layer 2 on FRONT" (counted from 1, on its print area). */
export const layerName = (printArea: string, layerIndex: number) =>
  `layer ${layerIndex + 1} on ${printArea}`;

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

/**
 * A field of a data set named in a design: `{{firstName}}`. A variable item fills each
 * from its record's row; the same names are a data set's column names (CSV header) or keys
 * (NDJSON).
 */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const FIELD = /\{\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}\}/g;
const FIELD_ONLY = /^\{\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}\}$/;

/** The fields a text names, in order of appearance (each once). */
export function fieldsIn(text: string): string[] {
  return [...new Set([...text.matchAll(FIELD)].map((m) => m[1]!))];
}

/** The text with each field replaced by the row's value (a missing one by nothing). */
export function fillFields(text: string, row: (field: string) => string | undefined): string {
  return text.replace(FIELD, (_, name: string) => row(name) ?? '');
}

/** The field an image layer's `src` names (`{{photo}}`), or undefined for an image of its own. */
export function imageField(src: string): string | undefined {
  return FIELD_ONLY.exec(src)?.[1];
}

export const imageLayerSchema = z
  .object({
    type: z.literal('image'),
    src: z
      .string()
      .max(Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 64, 'an image is at most 10 MB')
      .refine(
        (s) => DATA_URL.test(s) || FIELD_ONLY.test(s),
        'a base64 data URL of a PNG, JPEG, WebP or SVG image, or {{field}} naming an image of the label by a data set row',
      ),
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

/**
 * Where a text must fit: a long one is set smaller (`shrink`, down to `minFontSize`) or refused.
 */
export const textBoxSchema = z
  .object({
    width: size,
    height: size.optional(),
    fit: z.enum(['shrink', 'error']),
    /** the smallest a shrinking text is set at (a box that refuses needs none) */
    minFontSize: z.number().positive().max(1000).optional(),
  })
  .strict()
  .refine((b) => b.fit !== 'shrink' || b.minFontSize !== undefined, {
    message: 'a box that shrinks its text names its minFontSize',
    path: ['minFontSize'],
  })
  .meta({ id: 'TextBox', description: 'the box a text must fit (mm; font sizes in points)' });

export const textLayerSchema = z
  .object({
    type: z.literal('text'),
    /** may name fields of a data set: `Hello {{firstName}}` */
    text: z.string().min(1).max(2000),
    x: mm,
    y: mm,
    fontSize: z.number().positive().max(1000),
    color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour such as #1a2b3c'),
    box: textBoxSchema.optional(),
  })
  .strict()
  .meta({
    id: 'TextLayer',
    description:
      'a line of text (DejaVu Sans; size in points); `{{field}}` fills in a data set row',
  });

export const CODE_SYMBOLOGIES = ['qrcode', 'datamatrix', 'code128', 'ean13'] as const;
export const codeLayerSchema = z
  .object({
    type: z.literal('code'),
    symbology: z.enum(CODE_SYMBOLOGIES),
    /** what it encodes; may name fields: `{{url}}` */
    data: z.string().min(1).max(4000),
    x: mm,
    y: mm,
    width: size,
    height: size,
  })
  .strict()
  .meta({
    id: 'CodeLayer',
    description: 'a barcode drawn as vectors, 100% black, scaled into its box (mm)',
  });

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
export const layerSchema = z
  .discriminatedUnion('type', [imageLayerSchema, textLayerSchema, codeLayerSchema])
  .meta({
    id: 'Layer',
    discriminator: {
      propertyName: 'type',
      mapping: {
        image: '#/components/schemas/ImageLayer',
        text: '#/components/schemas/TextLayer',
        code: '#/components/schemas/CodeLayer',
      },
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
          codeLayerSchema,
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
  if (layer.type !== 'text')
    return { x: layer.x, y: layer.y, width: layer.width, height: layer.height };
  const em = layer.fontSize * 0.3528;
  if (layer.box) return { x: layer.x, y: layer.y, width: layer.box.width, height: em };
  return { x: layer.x, y: layer.y, width: em * 0.6 * layer.text.length, height: em };
}

/** The fields a layer names (none: the layer is the same in every record). */
export function layerFields(layer: Layer): string[] {
  if (layer.type === 'text') return fieldsIn(layer.text);
  if (layer.type === 'code') return fieldsIn(layer.data);
  const field = imageField(layer.src);
  return field === undefined ? [] : [field];
}

/** The fields a design names (text, codes, images), in order of appearance. */
export function designFields(design: Pick<Design, 'areas'>): string[] {
  return [...new Set(design.areas.flatMap((a) => a.layers.flatMap(layerFields)))];
}

/** A layer as people name it: "layer 2 on FRONT" (counted from 1, on its print area). */
export const layerName = (printArea: string, layerIndex: number) =>
  `layer ${layerIndex + 1} on ${printArea}`;

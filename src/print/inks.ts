import sharp from 'sharp';
import { type Design, imageField, layerName } from '../domain/project/design.ts';
import { RenderError } from './errors.ts';

export type Rgb = [number, number, number];

/** One ink of a product printed with inks: a spot colour and its plate. */
export interface Ink {
  /** the spot name: the design's (e.g. "PANTONE 186 C"), else "Spot <n> #RRGGBB" */
  name: string;
  hex: string;
  rgb: Rgb;
}

/** Colours closer than this (sRGB distance) are one ink: a logo's red and its palette's. */
const SAME_INK = 48;
/** An image holds with n inks when 90% of its printed pixels are this close to one. */
const HOLDS = 60;
/** Palette colours covering less of an image than this are specks, not inks. */
const SPECK = 0.01;
const ANALYSE_PX = 200;

const hexOf = ([r, g, b]: Rgb) =>
  `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
const rgbOf = (hex: string): Rgb => {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};
const distance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/**
 * The colours an image prints with when reduced to at most `n` (libimagequant, through
 * sharp, without dithering), biggest share first; undefined when `n` colours cannot
 * hold it (a photo, a gradient).
 */
export async function imageColours(bytes: Buffer, n: number): Promise<Rgb[] | undefined> {
  const small = sharp(bytes, { density: 72 }).rotate().resize(ANALYSE_PX, ANALYSE_PX, {
    fit: 'inside',
    withoutEnlargement: true,
  });
  const { data: original, info } = await small
    .clone()
    .toColourspace('srgb')
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const palette = await sharp(original, {
    raw: { width: info.width, height: info.height, channels: 4 },
  })
    // one colour more than the inks: the transparent one, or the colour too many
    .png({ palette: true, colours: n + 1, dither: 0, effort: 10 })
    .toBuffer();
  const quantised = await sharp(palette).ensureAlpha().raw().toBuffer();
  const counts = new Map<number, number>();
  const errors: number[] = [];
  for (let i = 0; i < original.length; i += 4) {
    if (original[i + 3]! < 128) continue;
    const q: Rgb = [quantised[i]!, quantised[i + 1]!, quantised[i + 2]!];
    const key = (q[0] << 16) | (q[1] << 8) | q[2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
    errors.push(distance(q, [original[i]!, original[i + 1]!, original[i + 2]!]));
  }
  if (errors.length === 0) return [];
  errors.sort((a, b) => a - b);
  if (errors[Math.floor(errors.length * 0.9)]! > HOLDS) return undefined;
  return [...counts.entries()]
    .filter(([, count]) => count / errors.length >= SPECK)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .map(([key]) => [(key >> 16) & 255, (key >> 8) & 255, key & 255]);
}

/** Why a design cannot be printed with a product's inks. */
export class InkError extends RenderError {
  constructor(
    message: string,
    /** the design's colours, as found */
    readonly colours: string[],
    /** the layer's field (design.areas.0.layers.1), when it is one layer */
    readonly at?: string,
  ) {
    super(message, 'layout');
  }
}

/**
 * The inks a design prints with on a product printed with `n` inks: its text colours and
 * the colours of its images, each reduced to at most `n`; colours closer than a small
 * distance are one ink; a colour near one the design names takes that name (and its
 * exact value). More than `n` inks, or an image that `n` colours cannot hold, is an
 * InkError naming the colours. The same design always gives the same inks, in the same
 * order (text colours first, in order; then images').
 */
export async function designInks(
  design: Design & { inks?: { color: string; name: string }[] | undefined },
  n: number,
  loadImage: (src: string) => Promise<{ type: string; bytes: Buffer } | undefined>,
  colours: (bytes: Buffer, n: number) => Promise<Rgb[] | undefined> = imageColours,
): Promise<Ink[]> {
  const found: Rgb[] = [];
  const add = (c: Rgb) => {
    if (!found.some((f) => distance(f, c) <= SAME_INK)) found.push(c);
  };
  for (const area of design.areas)
    for (const layer of area.layers) {
      if (layer.type === 'text') add(rgbOf(layer.color));
      // a code prints in black, or the ink nearest it
      if (layer.type === 'code') add(rgbOf('#000000'));
    }
  for (const [ai, area] of design.areas.entries())
    for (const [li, layer] of area.layers.entries()) {
      // an image a data set row names is not known before the sale (variable data prints in CMYK)
      if (layer.type !== 'image' || imageField(layer.src) !== undefined) continue;
      const at = layerName(area.printArea, li);
      const field = `design.areas.${ai}.layers.${li}`;
      const image = await loadImage(layer.src);
      if (!image)
        throw new RenderError(
          `${at}: the image is missing or not a supported image`,
          'image_missing',
        );
      const held = await colours(image.bytes, n);
      if (!held)
        throw new InkError(
          `${at}: the image cannot be printed with ${n} ink${n === 1 ? '' : 's'} (a photo or a gradient needs more colours; reduce it to ${n} flat colours)`,
          found.map(hexOf),
          field,
        );
      for (const c of held) add(c);
    }
  if (found.length > n) {
    const hexes = found.map(hexOf);
    throw new InkError(
      `the design has ${found.length} colours (${hexes.join(', ')}); the product is printed with ${n} ink${n === 1 ? '' : 's'}`,
      hexes,
    );
  }
  let spot = 0;
  return found.map((c) => {
    const named = (design.inks ?? []).find((i) => distance(rgbOf(i.color), c) <= SAME_INK);
    if (named) return { name: named.name, hex: named.color.toLowerCase(), rgb: rgbOf(named.color) };
    const hex = hexOf(c);
    return { name: `Spot ${++spot} ${hex.toUpperCase()}`, hex, rgb: c };
  });
}

/** The ink a design colour prints with: the nearest. */
export function inkFor(inks: Ink[], hex: string): number {
  const c = rgbOf(hex);
  let best = 0;
  for (const [i, ink] of inks.entries())
    if (distance(ink.rgb, c) < distance(inks[best]!.rgb, c)) best = i;
  return best;
}

import fontkit from '@pdf-lib/fontkit';
import type { Layer } from '../domain/project/design.ts';
import { FONT } from './fonts.ts';
import { PT_PER_MM } from './units.ts';

type TextLayer = Extract<Layer, { type: 'text' }>;

/**
 * DejaVu Sans as the variable-data renderer and the data set's check both measure it:
 * one glyph per character (no ligatures, no kerning), so a text measures the same in the
 * check, in the file and in a record rendered alone, and a record's bytes do not depend
 * on the records around it.
 */
const font = fontkit.create(FONT);
export const UNITS_PER_EM = font.unitsPerEm;
export const ASCENT = font.ascent;
export const DESCENT = font.descent;
export const FONT_BBOX = font.bbox;
export const GLYPH_COUNT = font.numGlyphs;

interface Glyph {
  id: number;
  advance: number;
}
const glyphs = new Map<number, Glyph | null>();

/** The glyph of a character, or null when the font has none (or it is a control character). */
export function glyphOf(cp: number): Glyph | null {
  let g = glyphs.get(cp);
  if (g === undefined) {
    g =
      cp >= 0x20 && font.hasGlyphForCodePoint(cp)
        ? (() => {
            const glyph = font.glyphForCodePoint(cp);
            return { id: glyph.id, advance: glyph.advanceWidth };
          })()
        : null;
    glyphs.set(cp, g);
  }
  return g;
}

/** The characters of a text the font cannot draw, each once. */
export function missingGlyphs(text: string): string[] {
  const out = new Set<string>();
  for (const ch of text) if (!glyphOf(ch.codePointAt(0)!)) out.add(ch);
  return [...out];
}

/** The text's width in points at 1 pt (characters without a glyph count nothing). */
export function widthAt1pt(text: string): number {
  let units = 0;
  for (const ch of text) units += glyphOf(ch.codePointAt(0)!)?.advance ?? 0;
  return units / UNITS_PER_EM;
}

const describe = (mm: number) => `${Math.round(mm * 10) / 10} mm`;

/**
 * The size a text is set at in its layer: its font size when it fits its box (or has no
 * box); smaller, down to the box's smallest, when the box says shrink; otherwise the
 * reason it overflows (sizes and lengths only: never the text itself).
 */
export function fitText(
  layer: Pick<TextLayer, 'fontSize' | 'box'>,
  text: string,
): { size: number } | { overflow: string } {
  const box = layer.box;
  if (!box) return { size: layer.fontSize };
  const perPt = widthAt1pt(text);
  const byWidth = perPt > 0 ? (box.width * PT_PER_MM) / perPt : Number.POSITIVE_INFINITY;
  const byHeight =
    box.height !== undefined
      ? (box.height * PT_PER_MM) / ((ASCENT - DESCENT) / UNITS_PER_EM)
      : Number.POSITIVE_INFINITY;
  const largest = Math.min(byWidth, byHeight);
  if (largest >= layer.fontSize) return { size: layer.fontSize };
  const widthMm = (pt: number) => (perPt * pt) / PT_PER_MM;
  // a shrinking box names its smallest size (the design's schema says so)
  const smallest = box.fit === 'shrink' ? (box.minFontSize ?? layer.fontSize) : layer.fontSize;
  if (box.fit === 'shrink' && largest >= smallest) return { size: Math.floor(largest * 100) / 100 };
  const at = smallest;
  return {
    overflow:
      byWidth < byHeight
        ? `${describe(widthMm(at))} wide at ${at} pt${box.fit === 'shrink' ? ' (its smallest size)' : ''}; the box is ${describe(box.width)}`
        : `${describe(((ASCENT - DESCENT) / UNITS_PER_EM) * (at / PT_PER_MM))} high at ${at} pt; the box is ${describe(box.height ?? 0)}`,
  };
}

/**
 * The text as a PDF string of two-byte glyph ids (Identity-H over the whole font): what
 * a page's `Tj` shows. Characters without a glyph are left out; `used` collects the glyphs
 * drawn, for the font's widths and its ToUnicode map.
 */
export function glyphHex(text: string, used: Map<number, number>): string {
  let hex = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const g = glyphOf(cp);
    if (!g) continue;
    if (!used.has(g.id)) used.set(g.id, cp);
    hex += g.id.toString(16).padStart(4, '0');
  }
  return hex;
}

/** A glyph's advance, in the font's units. */
export function advanceOf(glyphId: number): number {
  return font.getGlyph(glyphId).advanceWidth;
}

import type { BarcodeFormat } from '../domain/order/barcode.ts';
import type { VectorBarcode } from './barcode.ts';
import { RenderError } from './errors.ts';
import { BLEED_MM, PT_PER_MM, SLUG_MM } from './units.ts';

/*
 * Where things go on a print file's page, in points: both renderers (one item's PDF/X-4,
 * a variable item's PDF/VT) lay their pages out by these, so a record prints where the
 * same design printed alone would.
 */

/** Crop marks: 5 mm long, 1 mm outside the bleed; the page grows by 10 mm on each side. */
const MARK_MARGIN_MM = 10;
const MARK_OFFSET_MM = BLEED_MM + 1;
const MARK_LENGTH_MM = 5;
/** The slug's content starts this far in from the page's (marks') edge. */
const SLUG_INSET_MM = 2;
const mm = (v: number) => v * PT_PER_MM;

/** The product's print area a design's area (its `ai`th) prints on; one it lacks cannot print. */
export function printAreaOf<A extends { code: string }>(
  item: { sku: string; printAreas: A[] },
  ai: number,
  code: string,
): A {
  const spec = item.printAreas.find((a) => a.code === code);
  if (!spec)
    throw new RenderError(
      `the design's area ${ai + 1} is print area ${code}, which ${item.sku} does not have`,
    );
  return spec;
}

/** x, y (bottom left), width, height */
export type Rect = [number, number, number, number];

export interface AreaPage {
  width: number;
  height: number;
  bleed: Rect;
  trim: Rect;
  /** the print area's top left, where layers are measured from */
  left: number;
  top: number;
  /** the slug's room: where it starts and how wide it is */
  slugX: number;
  slugWidth: number;
}

/**
 * A print area's page: TrimBox = the area, BleedBox = TrimBox + 3 mm, MediaBox =
 * BleedBox + a 15 mm slug below (and, with crop marks, 10 mm more around for them).
 */
export function areaPage(
  area: { widthMm: number; heightMm: number },
  cropMarks: boolean,
): AreaPage {
  const W = area.widthMm;
  const H = area.heightMm;
  const M = cropMarks ? MARK_MARGIN_MM : 0;
  const width = mm(W + 2 * BLEED_MM + 2 * M);
  return {
    width,
    height: mm(SLUG_MM + M + H + 2 * BLEED_MM + M),
    bleed: [mm(M), mm(SLUG_MM + M), mm(W + 2 * BLEED_MM), mm(H + 2 * BLEED_MM)],
    trim: [mm(M + BLEED_MM), mm(SLUG_MM + M + BLEED_MM), mm(W), mm(H)],
    left: mm(M + BLEED_MM),
    top: mm(SLUG_MM + M + BLEED_MM + H),
    slugX: mm(M) + mm(SLUG_INSET_MM),
    slugWidth: width - 2 * mm(M) - 2 * mm(SLUG_INSET_MM),
  };
}

/** The crop marks at a trim's corners, as lines [x1, y1, x2, y2]. */
export function cropMarkLines([x, y, w, h]: Rect): [number, number, number, number][] {
  const off = mm(MARK_OFFSET_MM);
  const len = mm(MARK_LENGTH_MM);
  const lines: [number, number, number, number][] = [];
  for (const [cx, cy, dx, dy] of [
    [x, y, -1, -1],
    [x + w, y, 1, -1],
    [x, y + h, -1, 1],
    [x + w, y + h, 1, 1],
  ] as const) {
    lines.push([cx + dx * off, cy, cx + dx * (off + len), cy]);
    lines.push([cx, cy + dy * off, cx, cy + dy * (off + len)]);
  }
  return lines;
}

/**
 * The slug's barcode: the matrix drawing it (its own units, y down) at its top left,
 * at most its natural size, fitting the slug's room and 8 mm (linear) or 9 mm (2D) high.
 */
export function slugBarcodeMatrix(
  page: AreaPage,
  format: BarcodeFormat,
  code: VectorBarcode,
): [number, number, number, number, number, number] {
  const linear = format === 'code128' || format === 'ean13';
  const s = Math.min(1, page.slugWidth / code.width, mm(linear ? 8 : 9) / code.height);
  return [s, 0, 0, -s, page.slugX, mm(SLUG_MM - 1.5)];
}

/** The slug line's size: 6 pt, smaller (down to 2) when the line is wider than the room. */
export const slugLineSize = (page: AreaPage, widthAt6pt: number) =>
  Math.max(2, Math.min(6, (page.slugWidth / widthAt6pt) * 6));

/** The slug line's baseline. */
export const SLUG_LINE_Y = mm(1.5);

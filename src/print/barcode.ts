import bwipjs from 'bwip-js';
import type { Color, PDFPage } from 'pdf-lib';
import type { BarcodeFormat } from '../domain/order/barcode.ts';
import { RenderError } from './errors.ts';

const BCID: Record<BarcodeFormat, string> = {
  code128: 'code128',
  ean13: 'ean13',
  qrcode: 'qrcode',
  datamatrix: 'datamatrix',
};

/**
 * A barcode as vector shapes, in points with the origin at the top left (y down), at
 * its natural size (bwip-js at scale 1: one unit a point): bars as rectangles, 2D
 * symbols as closed polygons (holes run the other way round, for the non-zero rule).
 */
export interface VectorBarcode {
  width: number;
  height: number;
  bars: { x: number; y: number; width: number; height: number }[];
  polygons: [number, number][][];
}

const linear = (format: BarcodeFormat) => format === 'code128' || format === 'ean13';

/** The barcode's shapes; a value the format cannot hold is a RenderError. */
export function barcodeShapes(
  format: BarcodeFormat,
  value: string,
  options: { utf8?: boolean } = {},
): VectorBarcode {
  let svg: string;
  try {
    svg = bwipjs.toSVG({
      bcid: BCID[format],
      // `utf8` (2D codes): an ECI 26 designator first, so a scanner reads the bytes as UTF-8
      // and not as its guess (zbar took an umlaut and kanji for Shift JIS); "^" escaped
      ...(options.utf8
        ? { text: `^ECI000026${value.replace(/\^/g, '^^')}`, parsefnc: true }
        : { text: value }),
      scale: 1,
      ...(linear(format) ? { height: 8 } : {}),
      includetext: false,
      paddingwidth: 0,
      paddingheight: 0,
    });
  } catch (err) {
    throw new RenderError(`barcode: ${String((err as Error).message ?? err)}`, 'barcode');
  }
  const box = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(svg);
  if (!box) throw new RenderError('barcode: no drawing', 'barcode');
  const out: VectorBarcode = {
    width: Number(box[1]),
    height: Number(box[2]),
    bars: [],
    polygons: [],
  };
  for (const path of svg.matchAll(/<path ([^>]*)\/>/g)) {
    const attrs = path[1]!;
    const d = /\sd="([^"]*)"|^d="([^"]*)"/.exec(attrs);
    const data = d?.[1] ?? d?.[2] ?? '';
    const stroke = /stroke-width="([\d.]+)"/.exec(attrs);
    if (stroke) {
      // bars: vertical lines of that width, "M x y1 L x y0"
      const w = Number(stroke[1]);
      for (const m of data.matchAll(/M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)/g)) {
        const x = Number(m[1]);
        const y0 = Math.min(Number(m[2]), Number(m[4]));
        const y1 = Math.max(Number(m[2]), Number(m[4]));
        out.bars.push({ x: x - w / 2, y: y0, width: w, height: y1 - y0 });
      }
    } else {
      for (const poly of data.split('Z')) {
        const pts = [...poly.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map(
          (m) => [Number(m[1]), Number(m[2])] as [number, number],
        );
        if (pts.length >= 3) out.polygons.push(pts);
      }
    }
  }
  if (out.bars.length === 0 && out.polygons.length === 0)
    throw new RenderError('barcode: no drawing', 'barcode');
  return out;
}

/**
 * A linear barcode's bars drawn on a page from `x, y` (its bottom left), `module` points a module.
 */
export function drawBars(
  page: PDFPage,
  code: VectorBarcode,
  at: { x: number; y: number; module: number; height: number; color: Color },
): void {
  for (const bar of code.bars)
    page.drawRectangle({
      x: at.x + bar.x * at.module,
      y: at.y,
      width: bar.width * at.module,
      height: at.height,
      color: at.color,
    });
}

import QRCode from 'qrcode';
import { barcodeProblem } from '../domain/order/barcode.ts';
import type { Layer } from '../domain/project/design.ts';
import { barcodeShapes } from './barcode.ts';
import { RenderError } from './errors.ts';
import { PT_PER_MM } from './units.ts';

type CodeLayer = Extract<Layer, { type: 'code' }>;

/**
 * How many bytes a QR code holds in byte mode at error correction level M (bwip-js's
 * level), by version 1-40 (ISO/IEC 18004, table 7).
 */
const QR_BYTES_M = [
  14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560, 624, 666,
  711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370, 1452, 1538, 1628, 1722, 1809, 1911, 1989,
  2099, 2213, 2331,
];
/** The smallest module a 2D code is printed with and still read by a phone (mm). */
export const MIN_MODULE_MM = 0.3;
/** The narrowest bar of a linear code (mm), as ISO/IEC 15417 allows for Code 128 at best. */
export const MIN_BAR_MM = 0.19;

/**
 * The quiet zone each symbology needs on each side, in modules, inside the layer's box:
 * the box is knocked out to paper white and the code drawn within it, so a code on a
 * photo still scans.
 */
const QUIET = { qrcode: 4, datamatrix: 1, code128: 10, ean13: 11 } as const;

const utf8 = (value: string) => !/^[\x20-\x7e]*$/.test(value);

/**
 * Why a code layer cannot print a value, or undefined when it can: what the symbology
 * cannot hold at all, and a value that would make the code too dense to be read at the
 * layer's size. Counted from the data, not by drawing it: 100,000 rows are checked in
 * well under a second this way.
 */
export function codeProblem(layer: Pick<CodeLayer, 'symbology' | 'width'>, value: string) {
  if (value.length === 0) return 'nothing to encode';
  if (layer.symbology === 'qrcode') {
    // an ECI designator (5 bytes) precedes UTF-8 data
    const bytes = Buffer.byteLength(value, 'utf8') + (utf8(value) ? 5 : 0);
    const version = QR_BYTES_M.findIndex((capacity) => capacity >= bytes) + 1;
    if (version === 0) return `${bytes} bytes: a QR code holds at most 2331 at level M`;
    const modules = 17 + 4 * version;
    const module = layer.width / (modules + 2 * QUIET.qrcode);
    if (module < MIN_MODULE_MM)
      return `${bytes} bytes need a ${modules}-module QR code: ${round(module)} mm a module at ${layer.width} mm, under ${MIN_MODULE_MM} mm`;
    return undefined;
  }
  const problem = barcodeProblem(layer.symbology, value);
  if (problem) return problem;
  if (layer.symbology === 'code128') {
    // start, data, check and stop symbols of 11 modules (the stop 13)
    const modules = 11 * (value.length + 2) + 13;
    const bar = layer.width / (modules + 2 * QUIET.code128);
    if (bar < MIN_BAR_MM)
      return `${value.length} characters make ${modules} modules: ${round(bar)} mm a bar at ${layer.width} mm, under ${MIN_BAR_MM} mm`;
  }
  return undefined;
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/** One drawing operation of a code: a rectangle, a polygon's points, or the fill that ends it. */
export type CodeOp = ['re', number, number, number, number] | ['m' | 'l', number, number] | ['h'];

/** A code as drawn: its box knocked out to paper white, then its shapes in black. */
export interface DrawnCode {
  knockout: [x: number, y: number, w: number, h: number];
  shapes: CodeOp[];
}

/**
 * A code layer drawn into its box: shapes in points, y up, from the box's top left at
 * (`left`, `top`) on the page, inside the symbology's quiet zone. A 2D code keeps its
 * squares (centred in the box); a linear code fills the box's height. A value the
 * symbology cannot hold throws a RenderError.
 */
export function codeOps(
  layer: Pick<CodeLayer, 'symbology' | 'width' | 'height'>,
  value: string,
  left: number,
  top: number,
): DrawnCode {
  const W = layer.width * PT_PER_MM;
  const H = layer.height * PT_PER_MM;
  const knockout: DrawnCode['knockout'] = [round(left), round(top - H), round(W), round(H)];
  if (layer.symbology === 'qrcode' && !utf8(value))
    return { knockout, shapes: qrOps(layer, value, left, top) };
  const code = barcodeShapes(layer.symbology, value, { utf8: utf8(value) });
  const linear = layer.symbology === 'code128' || layer.symbology === 'ean13';
  // bwip-js draws at one point a module: the quiet zone is that many points
  const q = QUIET[layer.symbology];
  const fx = W / (code.width + 2 * q);
  const w = code.width * fx;
  const h = linear ? H : Math.min(H - 2 * q * fx, code.height * fx);
  left += (W - w) / 2;
  top -= (H - h) / 2;
  const sx = w / code.width;
  const sy = linear ? h / code.height : sx;
  const s = Math.min(sx, sy);
  const [kx, ky] = linear ? [sx, sy] : [s, s];
  const x0 = left + (linear ? 0 : (w - code.width * s) / 2);
  const y0 = top - (linear ? 0 : (h - code.height * s) / 2);
  const X = (x: number) => round(x0 + x * kx);
  const Y = (y: number) => round(y0 - y * ky);
  const ops: CodeOp[] = [];
  for (const b of code.bars)
    ops.push(['re', X(b.x), Y(b.y + b.height), round(b.width * kx), round(b.height * ky)]);
  for (const poly of code.polygons) {
    const [first, ...rest] = poly;
    ops.push(['m', X(first![0]), Y(first![1])]);
    for (const [px, py] of rest) ops.push(['l', X(px), Y(py)]);
    ops.push(['h']);
  }
  return { knockout, shapes: ops };
}

/**
 * A QR code of printable ASCII by the qrcode package (level M, as the check counts):
 * 0.2 ms where bwip-js takes 3.7, which a 500-records-a-second render needs. Each row's
 * runs of dark modules are one rectangle. (UTF-8 data goes through bwip-js, which writes
 * the ECI designator scanners need to read it as UTF-8.)
 */
function qrOps(
  layer: Pick<CodeLayer, 'width' | 'height'>,
  value: string,
  left: number,
  top: number,
): CodeOp[] {
  let qr: ReturnType<typeof QRCode.create>;
  try {
    qr = QRCode.create(value, { errorCorrectionLevel: 'M' });
  } catch (err) {
    throw new RenderError(`barcode: ${(err as Error).message}`, 'barcode');
  }
  const n = qr.modules.size;
  const data = qr.modules.data;
  const w = layer.width * PT_PER_MM;
  const h = layer.height * PT_PER_MM;
  const m = Math.min(w, h) / (n + 2 * QUIET.qrcode);
  const x0 = left + (w - n * m) / 2;
  const y0 = top - (h - n * m) / 2;
  const ops: CodeOp[] = [];
  for (let y = 0; y < n; y++) {
    let x = 0;
    while (x < n) {
      if (!data[y * n + x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < n && data[y * n + x]) x++;
      ops.push([
        're',
        round(x0 + start * m),
        round(y0 - (y + 1) * m),
        round((x - start) * m),
        round(m),
      ]);
    }
  }
  return ops;
}

/** A code as content-stream text: the knockout in paper white, the shapes in 100% K. */
export function codeContent(code: DrawnCode): string {
  const parts = [`q 0 0 0 0 k ${code.knockout.join(' ')} re f 0 0 0 1 k`];
  for (const [op, ...args] of code.shapes) parts.push(`${args.join(' ')} ${op}`.trimStart());
  parts.push('f Q');
  return parts.join('\n');
}

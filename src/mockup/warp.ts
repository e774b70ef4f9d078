import PerspT from 'perspective-transform';
import type { Quad } from './quad.ts';

/**
 * Pixels with premultiplied alpha (each colour already times its alpha, as a canvas keeps
 * them), 4 bytes each in the order R, G, B, A, row by row.
 */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
  /** what owns the memory of `data` when that is not its own buffer, held while it is used */
  keep?: unknown;
}

/** The photo being drawn on: 3 bytes a pixel, row by row, changed in place. */
export interface Rgb {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

export type Blend = 'multiply' | 'normal';

/** Pixels along a row between exact points of the homography (see warpInto). */
const STEP = 16;
/** The red and blue bytes of a pixel word, and a half in each of their 16-bit lanes. */
const RB = 0xff00ff;
const HALF = 0x800080;

/**
 * Draws the artwork into the quad on the photo, in place: each photo pixel whose centre
 * falls in the quad takes the artwork's colour at the point the inverse homography maps
 * it to (bilinear, over premultiplied alpha so that the artwork's transparent parts and
 * its edges do not darken its rim). `normal` lays the colour over the photo; `multiply`
 * multiplies it with the photo, so the photo's shading and folds show through as they
 * would in ink on the product. `mask` (one byte a pixel, photo size) scales the artwork's
 * cover: 0 hides it (a mug's handle before the print), 255 shows it. Pure arithmetic in
 * a fixed order: the same inputs give the same pixels on every machine.
 */
export function warpInto(photo: Rgb, art: Rgba, quad: Quad, blend: Blend, mask?: Uint8Array) {
  const { width: W, height: H, data: out } = photo;
  const { width: aw, height: ah, data: src } = art;
  const corners = [0, 0, aw, 0, aw, ah, 0, ah];
  const [a, b, c, d, e, f, g, h] = PerspT(corners, quad.flat()).coeffsInv as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ys = quad.map((p) => p[1]);
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(H, Math.ceil(Math.max(...ys)));
  const multiply = blend === 'multiply';
  const rowBytes = aw * 4;
  const px = pixelWords(src);
  // the opaque path's sums are whole bytes already: stored without the clamped array's rounding
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.length);
  for (let y = y0; y < y1; y++) {
    const py = y + 0.5;
    const [from, to] = rowSpan(quad, py, W);
    const bc = b * py + c;
    const ef = e * py + f;
    const h1 = h * py + 1;
    // the artwork's point exactly at every STEP-th pixel, in straight steps between: a
    // homography bends so little over STEP pixels that the steps stray from it by far
    // less than a hundredth of a pixel, and a division a pixel costs as much as the rest
    // of the mapping. The artwork's grid has its centres at .5: (u, v) is shifted by .5.
    let x1 = from;
    let w1 = g * (x1 + 0.5) + h1;
    let u1 = (a * (x1 + 0.5) + bc) / w1 - 0.5;
    let v1 = (d * (x1 + 0.5) + ef) / w1 - 0.5;
    for (let x0 = from; x0 < to; x0 = x1) {
      const u0 = u1;
      const v0 = v1;
      x1 = Math.min(to, x0 + STEP);
      w1 = g * (x1 + 0.5) + h1;
      u1 = (a * (x1 + 0.5) + bc) / w1 - 0.5;
      v1 = (d * (x1 + 0.5) + ef) / w1 - 0.5;
      const du = (u1 - u0) / (x1 - x0);
      const dv = (v1 - v0) / (x1 - x0);
      for (let x = x0, u = u0, v = v0; x < x1; x++, u += du, v += dv) {
        if (u <= -1 || v <= -1 || u >= aw || v >= ah) continue;
        // u, v > -1: truncating u + 1 floors u
        const ui = ((u + 1) | 0) - 1;
        const vi = ((v + 1) | 0) - 1;
        const o = (y * W + x) * 3;
        if (ui >= 0 && vi >= 0 && ui + 1 < aw && vi + 1 < ah) {
          const i = vi * aw + ui;
          const p00 = px[i]!;
          const p10 = px[i + 1]!;
          const p01 = px[i + aw]!;
          const p11 = px[i + aw + 1]!;
          if (!mask && (p00 & p10 & p01 & p11) >>> 24 === 255) {
            // opaque artwork, no mask (most of a design): in integers, a row's two pixels
            // weighed in 1/256ths, then the two rows; red and blue side by side in one
            // word (each byte times at most 256 fits its 16 bits), rounded at each step.
            // x * c / 255 rounded is (t + (t >> 8)) >> 8 with t = x * c + 128.
            const fx = ((u - ui) * 256 + 0.5) | 0;
            const fy = ((v - vi) * 256 + 0.5) | 0;
            const gx = 256 - fx;
            const gy = 256 - fy;
            const rbTop = ((Math.imul(p00 & RB, gx) + Math.imul(p10 & RB, fx) + HALF) | 0) >>> 8;
            const rbBottom = ((Math.imul(p01 & RB, gx) + Math.imul(p11 & RB, fx) + HALF) | 0) >>> 8;
            const rb =
              (((Math.imul(rbTop & RB, gy) + Math.imul(rbBottom & RB, fy) + HALF) | 0) >>> 8) & RB;
            const gTop = ((p00 >> 8) & 255) * gx + ((p10 >> 8) & 255) * fx;
            const gBottom = ((p01 >> 8) & 255) * gx + ((p11 >> 8) & 255) * fx;
            const r = rb & 255;
            const gr = (gTop * gy + gBottom * fy + 32768) >> 16;
            const bl = rb >>> 16;
            if (multiply) {
              const tr = bytes[o]! * r + 128;
              const tg = bytes[o + 1]! * gr + 128;
              const tb = bytes[o + 2]! * bl + 128;
              bytes[o] = (tr + (tr >> 8)) >> 8;
              bytes[o + 1] = (tg + (tg >> 8)) >> 8;
              bytes[o + 2] = (tb + (tb >> 8)) >> 8;
            } else {
              bytes[o] = r;
              bytes[o + 1] = gr;
              bytes[o + 2] = bl;
            }
            continue;
          }
        }
        const fu = u - ui;
        const fv = v - vi;
        // over premultiplied alpha; neighbours off the artwork (at its rim) are transparent
        let pa = 0;
        let pr = 0;
        let pg = 0;
        let pb = 0;
        for (let k = 0; k < 4; k++) {
          const tx = ui + (k & 1);
          const ty = vi + (k >> 1);
          if (tx < 0 || ty < 0 || tx >= aw || ty >= ah) continue;
          const i = ty * rowBytes + tx * 4;
          const weight = ((k & 1) === 1 ? fu : 1 - fu) * (k >> 1 === 1 ? fv : 1 - fv);
          pa += (weight * src[i + 3]!) / 255;
          pr += weight * src[i]!;
          pg += weight * src[i + 1]!;
          pb += weight * src[i + 2]!;
        }
        if (pa === 0) continue;
        const m = mask ? mask[y * W + x]! / 255 : 1;
        if (m === 0) continue;
        const keep = 1 - pa * m;
        if (multiply) {
          out[o] = out[o]! * ((pr * m) / 255 + keep);
          out[o + 1] = out[o + 1]! * ((pg * m) / 255 + keep);
          out[o + 2] = out[o + 2]! * ((pb * m) / 255 + keep);
        } else {
          out[o] = pr * m + out[o]! * keep;
          out[o + 1] = pg * m + out[o + 1]! * keep;
          out[o + 2] = pb * m + out[o + 2]! * keep;
        }
      }
    }
  }
}

/**
 * The pixels of a row that can touch the quad: the quad's extent within a band 1.5 px
 * above and below the row's centre (where its edges cross the band's borders, and its
 * corners inside the band), two pixels wider each side, within the photo. A shallow edge
 * shades pixels far along the row: the band catches them.
 */
function rowSpan(quad: Quad, py: number, width: number): [number, number] {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  const take = (x: number) => {
    lo = Math.min(lo, x);
    hi = Math.max(hi, x);
  };
  for (let i = 0; i < 4; i++) {
    const [xa, ya] = quad[i]!;
    const [xb, yb] = quad[(i + 1) % 4]!;
    if (Math.abs(ya - py) <= 1.5) take(xa);
    for (const line of [py - 1.5, py + 1.5])
      if (ya !== yb && Math.min(ya, yb) <= line && line <= Math.max(ya, yb))
        take(xa + ((line - ya) / (yb - ya)) * (xb - xa));
  }
  if (lo > hi) return [0, 0];
  return [Math.max(0, Math.floor(lo) - 2), Math.min(width, Math.ceil(hi) + 2)];
}

/**
 * 4-byte pixels as 32-bit words (the first byte in the low bits on a little-endian
 * machine, as every machine this runs on is): one load a pixel instead of four. A copy
 * only when the bytes do not start on a word.
 */
export function pixelWords(src: Uint8Array): Uint32Array {
  if (!LITTLE_ENDIAN) throw new Error('the mockup drawing needs a little-endian machine');
  const aligned = src.byteOffset % 4 === 0 ? src : src.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length >> 2);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

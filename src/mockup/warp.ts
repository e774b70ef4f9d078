import PerspT from 'perspective-transform';
import type { Quad } from './quad.ts';

/** Pixels with straight (not premultiplied) alpha, 4 bytes each, row by row. */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

/** The photo being drawn on: 3 bytes a pixel, row by row, changed in place. */
export interface Rgb {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

export type Blend = 'multiply' | 'normal';

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
  for (let y = y0; y < y1; y++) {
    const py = y + 0.5;
    const [from, to] = rowSpan(quad, py, W);
    // along a row the homography's three sums grow by a, d and g per pixel
    let nu = a * (from + 0.5) + b * py + c;
    let nv = d * (from + 0.5) + e * py + f;
    let w = g * (from + 0.5) + h * py + 1;
    for (let x = from; x < to; x++, nu += a, nv += d, w += g) {
      // the artwork's pixel grid has its centres at .5: sample around (u - .5, v - .5)
      const iw = 1 / w;
      const u = nu * iw - 0.5;
      const v = nv * iw - 0.5;
      if (u <= -1 || v <= -1 || u >= aw || v >= ah) continue;
      // u, v > -1: truncating u + 1 floors u
      const ui = ((u + 1) | 0) - 1;
      const vi = ((v + 1) | 0) - 1;
      const o = (y * W + x) * 3;
      if (ui >= 0 && vi >= 0 && ui + 1 < aw && vi + 1 < ah) {
        const i = vi * rowBytes + ui * 4;
        const j = i + rowBytes;
        if (!mask && (src[i + 3]! & src[i + 7]! & src[j + 3]! & src[j + 7]!) === 255) {
          // opaque artwork, no mask (most of a design): the four weights in 1/65,536ths,
          // integer sums; x * c / 255 rounded is (t + (t >> 8)) >> 8 with t = x * c + 128
          const fx = ((u - ui) * 256 + 0.5) | 0;
          const fy = ((v - vi) * 256 + 0.5) | 0;
          const w00 = (256 - fx) * (256 - fy);
          const w10 = fx * (256 - fy);
          const w01 = (256 - fx) * fy;
          const w11 = fx * fy;
          const r =
            (w00 * src[i]! + w10 * src[i + 4]! + w01 * src[j]! + w11 * src[j + 4]! + 32768) >> 16;
          const gr =
            (w00 * src[i + 1]! +
              w10 * src[i + 5]! +
              w01 * src[j + 1]! +
              w11 * src[j + 5]! +
              32768) >>
            16;
          const bl =
            (w00 * src[i + 2]! +
              w10 * src[i + 6]! +
              w01 * src[j + 2]! +
              w11 * src[j + 6]! +
              32768) >>
            16;
          if (multiply) {
            const tr = out[o]! * r + 128;
            const tg = out[o + 1]! * gr + 128;
            const tb = out[o + 2]! * bl + 128;
            out[o] = (tr + (tr >> 8)) >> 8;
            out[o + 1] = (tg + (tg >> 8)) >> 8;
            out[o + 2] = (tb + (tb >> 8)) >> 8;
          } else {
            out[o] = r;
            out[o + 1] = gr;
            out[o + 2] = bl;
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
        const alpha = (weight * src[i + 3]!) / 255;
        pa += alpha;
        pr += alpha * src[i]!;
        pg += alpha * src[i + 1]!;
        pb += alpha * src[i + 2]!;
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

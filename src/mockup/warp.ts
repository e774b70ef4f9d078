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
  const xs = quad.map((p) => p[0]);
  const ys = quad.map((p) => p[1]);
  const x0 = Math.max(0, Math.floor(Math.min(...xs)));
  const x1 = Math.min(W, Math.ceil(Math.max(...xs)));
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(H, Math.ceil(Math.max(...ys)));
  const multiply = blend === 'multiply';
  const rowBytes = aw * 4;
  for (let y = y0; y < y1; y++) {
    const py = y + 0.5;
    for (let x = x0; x < x1; x++) {
      const px = x + 0.5;
      const w = g * px + h * py + 1;
      // the artwork's pixel grid has its centres at .5: sample around (u - .5, v - .5)
      const u = (a * px + b * py + c) / w - 0.5;
      const v = (d * px + e * py + f) / w - 0.5;
      if (u <= -1 || v <= -1 || u >= aw || v >= ah) continue;
      const ui = Math.floor(u);
      const vi = Math.floor(v);
      const fu = u - ui;
      const fv = v - vi;
      let pa = 0;
      let pr = 0;
      let pg = 0;
      let pb = 0;
      // the four neighbours; those off the artwork are transparent
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
      const o = (y * W + x) * 3;
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

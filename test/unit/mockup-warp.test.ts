import { describe, expect, it } from 'vitest';
import { type Quad, quadProblem, quadSpan } from '../../src/mockup/quad.ts';
import { type Rgb, warpInto } from '../../src/mockup/warp.ts';

const W = 200;
const H = 150;
const photo = (grey: number): Rgb => ({
  width: W,
  height: H,
  data: new Uint8ClampedArray(W * H * 3).fill(grey),
});
const red = (width: number, height: number) => ({
  width,
  height,
  data: new Uint8Array(width * height * 4).map((_, i) => (i % 4 === 0 || i % 4 === 3 ? 255 : 0)),
});
const at = (p: Rgb, x: number, y: number) => [
  ...p.data.subarray((y * W + x) * 3, (y * W + x) * 3 + 3),
];

describe('mockup geometry', () => {
  it('takes a convex quad clockwise from the top-left on the photo, and says what is wrong with others', () => {
    const ok: Quad = [
      [20, 20],
      [180, 30],
      [170, 130],
      [30, 120],
    ];
    expect(quadProblem(ok, W, H)).toBeUndefined();
    expect(quadProblem([ok[0], ok[3], ok[2], ok[1]], W, H)).toMatch(/clockwise/);
    expect(
      quadProblem(
        [
          [20, 20],
          [180, 20],
          [60, 60],
          [20, 130],
        ],
        W,
        H,
      ),
    ).toMatch(/convex/);
    expect(quadProblem([ok[0], [201, 30], ok[2], ok[3]], W, H)).toMatch(/corner 2 .* outside/);
    expect(
      quadProblem(
        [
          [0, 0],
          [10, 0],
          [20, 0],
          [5, 1],
        ],
        W,
        H,
      ),
    ).toBeDefined();
    expect(quadSpan(ok).across).toBeCloseTo(Math.hypot(160, 10), 6);
  });

  it('warps into the quad only, and multiplies with the photo', () => {
    const q: Quad = [
      [40, 30],
      [160, 40],
      [150, 120],
      [50, 110],
    ];
    const normal = photo(200);
    warpInto(normal, red(60, 40), q, 'normal');
    expect(at(normal, 100, 75)).toEqual([255, 0, 0]);
    expect(at(normal, 5, 5)).toEqual([200, 200, 200]);
    expect(at(normal, 195, 145)).toEqual([200, 200, 200]);
    const multiplied = photo(100);
    warpInto(multiplied, red(60, 40), q, 'multiply');
    expect(at(multiplied, 100, 75)).toEqual([100, 0, 0]);
    // a mask hides the artwork where it is black
    const masked = photo(200);
    const mask = new Uint8Array(W * H).fill(255);
    for (let y = 0; y < H; y++) for (let x = 0; x < 100; x++) mask[y * W + x] = 0;
    warpInto(masked, red(60, 40), q, 'normal', mask);
    expect(at(masked, 80, 75)).toEqual([200, 200, 200]);
    expect(at(masked, 120, 75)).toEqual([255, 0, 0]);
  });

  it('copies an artwork exactly into a quad of its own size, and blends halfway colours between pixels', () => {
    // a 40 x 30 artwork of distinct colours, opaque, laid 1:1 at (10, 20)
    const aw = 40;
    const ah = 30;
    const art = {
      width: aw,
      height: ah,
      data: new Uint8Array(aw * ah * 4).map((_, i) =>
        i % 4 === 3 ? 255 : ((i >> 2) * 7 + (i % 4) * 61) & 255,
      ),
    };
    const q: Quad = [
      [10, 20],
      [10 + aw, 20],
      [10 + aw, 20 + ah],
      [10, 20 + ah],
    ];
    const out = photo(0);
    warpInto(out, art, q, 'normal');
    for (const [x, y] of [
      [0, 0],
      [1, 0],
      [39, 0],
      [17, 13],
      [39, 29],
    ] as const) {
      const i = (y * aw + x) * 4;
      expect(at(out, 10 + x, 20 + y)).toEqual([...art.data.subarray(i, i + 3)]);
    }
    // the same artwork spread over twice its width: every other photo pixel falls halfway
    const wide = photo(0);
    const q2: Quad = [
      [10, 20],
      [10 + 2 * aw, 20],
      [10 + 2 * aw, 20 + ah],
      [10, 20 + ah],
    ];
    warpInto(wide, art, q2, 'normal');
    // photo x = 10 + 2k + 1 samples the artwork at u = k + 0.25: 3/4 of pixel k, 1/4 of k + 1
    for (const k of [3, 20]) {
      const i = (5 * aw + k) * 4;
      const expected = [0, 1, 2].map((c) =>
        Math.round((3 * art.data[i + c]! + art.data[i + 4 + c]!) / 4),
      );
      const got = at(wide, 10 + 2 * k + 1, 25);
      for (const c of [0, 1, 2]) expect(Math.abs(got[c]! - expected[c]!)).toBeLessThanOrEqual(1);
    }
  });
});

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
});

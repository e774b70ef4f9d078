/** A point on the photo, in pixels: x to the right, y down. */
export type Point = [number, number];
/** Four corners, clockwise from the top-left one (as the eye sees the photo). */
export type Quad = [Point, Point, Point, Point];

const cross = (o: Point, a: Point, b: Point) =>
  (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);

/** The smallest area a quad may span, px²: a sliver would stretch the design to nothing. */
const MIN_AREA = 16;

/**
 * What is wrong with a quad, in plain words, or undefined when it can take a design:
 * every corner on the photo, and the four a convex quadrilateral turning clockwise on the
 * photo (each corner turns right; y runs down, so a right turn has a positive cross product).
 */
export function quadProblem(q: Quad, width: number, height: number): string | undefined {
  for (const [i, [x, y]] of q.entries())
    if (!(x >= 0 && y >= 0 && x <= width && y <= height))
      return `corner ${i + 1} (${x}, ${y}) lies outside the ${width} x ${height} px photo`;
  for (let i = 0; i < 4; i++) {
    const turn = cross(q[i]!, q[(i + 1) % 4]!, q[(i + 2) % 4]!);
    if (turn <= 0)
      return turn === 0
        ? `corners ${i + 1} to ${((i + 2) % 4) + 1} lie on one line: the quad must be a convex quadrilateral`
        : `the corners do not form a convex quadrilateral running clockwise from the top-left (at corner ${((i + 1) % 4) + 1})`;
  }
  if (quadArea(q) < MIN_AREA) return `the quad spans less than ${MIN_AREA} px²`;
  return undefined;
}

/** The area a convex quad spans (the shoelace formula). */
export function quadArea(q: Quad): number {
  let twice = 0;
  for (let i = 0; i < 4; i++) {
    const [x0, y0] = q[i]!;
    const [x1, y1] = q[(i + 1) % 4]!;
    twice += x0 * y1 - x1 * y0;
  }
  return Math.abs(twice) / 2;
}

const length = (a: Point, b: Point) => Math.hypot(b[0] - a[0], b[1] - a[1]);

/**
 * How many pixels of artwork the quad shows, across and down: its longer top or bottom
 * edge, its longer left or right one. The artwork is drawn at this size, so the warp
 * neither throws detail away nor invents it.
 */
export function quadSpan(q: Quad): { across: number; down: number } {
  const [tl, tr, br, bl] = q;
  return {
    across: Math.max(length(tl, tr), length(bl, br)),
    down: Math.max(length(tl, bl), length(tr, br)),
  };
}

export const scaleQuad = (q: Quad, sx: number, sy: number): Quad =>
  q.map(([x, y]): Point => [x * sx, y * sy]) as Quad;

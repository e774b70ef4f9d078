/** A rectangle in millimetres, from the sheet's top left (y down). */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}
export interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Cut marks start this far outside the bleed and run this long, at most. */
export const MARK_GAP_MM = 1;
export const MARK_LENGTH_MM = 4;

const EPS = 1e-6;
const crosses = (s: Segment, r: Rect) =>
  Math.max(s.x1, s.x2) > r.x + EPS &&
  Math.min(s.x1, s.x2) < r.x + r.w - EPS &&
  Math.max(s.y1, s.y2) > r.y + EPS &&
  Math.min(s.y1, s.y2) < r.y + r.h - EPS;
/** a line of no width "crosses" a rectangle when it lies inside or on its interior */
const touches = (s: Segment, r: Rect) =>
  s.x1 === s.x2
    ? s.x1 > r.x - EPS &&
      s.x1 < r.x + r.w + EPS &&
      Math.max(s.y1, s.y2) > r.y + EPS &&
      Math.min(s.y1, s.y2) < r.y + r.h - EPS
    : s.y1 > r.y - EPS &&
      s.y1 < r.y + r.h + EPS &&
      Math.max(s.x1, s.x2) > r.x + EPS &&
      Math.min(s.x1, s.x2) < r.x + r.w - EPS;

/**
 * Cut marks at the trim corners of every piece, outside every piece's bleed: each mark
 * runs outwards from `MARK_GAP_MM` beyond the bleed edge, shortened where it would reach
 * another piece's bleed or leave `within`, and left out when nothing of it is left.
 * Pieces laid edge to edge (no gutter) share the marks of their outer edges.
 */
export function cutMarks(
  pieces: { bleed: Rect; trim: Rect }[],
  within: Rect,
  keepClear: Rect[] = [],
): Segment[] {
  const blocks = [...pieces.map((p) => p.bleed), ...keepClear];
  const out: Segment[] = [];
  const add = (s: Segment) => {
    const inside =
      Math.min(s.x1, s.x2) >= within.x - EPS &&
      Math.max(s.x1, s.x2) <= within.x + within.w + EPS &&
      Math.min(s.y1, s.y2) >= within.y - EPS &&
      Math.max(s.y1, s.y2) <= within.y + within.h + EPS;
    if (inside && !blocks.some((b) => touches(s, b) || crosses(s, b))) out.push(s);
  };
  /** the longest mark from (x, y) in direction (dx, dy) that stays clear, 1 mm at least */
  const mark = (x: number, y: number, dx: number, dy: number) => {
    for (let len = MARK_LENGTH_MM; len >= 1; len -= 0.5) {
      const s = { x1: x, y1: y, x2: x + dx * len, y2: y + dy * len };
      const before = out.length;
      add(s);
      if (out.length > before) return;
    }
  };
  for (const { bleed, trim } of pieces) {
    const left = bleed.x - MARK_GAP_MM;
    const right = bleed.x + bleed.w + MARK_GAP_MM;
    const top = bleed.y - MARK_GAP_MM;
    const bottom = bleed.y + bleed.h + MARK_GAP_MM;
    for (const ty of [trim.y, trim.y + trim.h]) {
      mark(left, ty, -1, 0);
      mark(right, ty, 1, 0);
    }
    for (const tx of [trim.x, trim.x + trim.w]) {
      mark(tx, top, 0, -1);
      mark(tx, bottom, 0, 1);
    }
  }
  return out;
}

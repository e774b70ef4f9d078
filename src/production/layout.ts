import { MaxRectsPacker, PACKING_LOGIC } from 'maxrects-packer/dist/maxrects-packer.mjs';

/** A piece to place: an item's page with its bleed, `copies` times. */
export interface Piece {
  id: string;
  widthMm: number;
  heightMm: number;
  copies: number;
}

export interface Media {
  widthMm: number;
  /** a sheet's height, or the longest a roll may be cut */
  heightMm: number;
}

export interface LayoutOptions {
  media: Media;
  /** between placements */
  gutterMm: number;
  /** kept clear on every side of the media (the slug and the grips go there) */
  marginMm: number;
  allowRotation: boolean;
}

export interface Placement {
  id: string;
  copy: number;
  xMm: number;
  yMm: number;
  widthMm: number;
  heightMm: number;
  rotated: boolean;
}

export interface Layout {
  sheets: { placements: Placement[]; utilisation: number }[];
  /** no layout can use fewer sheets: the placed area over the usable area of one */
  lowerBound: number;
  /** placed area over the usable area of every sheet */
  utilisation: number;
  /** the heuristic that gave it, for the record */
  heuristic: string;
}

/** Packing works in tenths of a millimetre: whole numbers, as the packer expects. */
const UNIT = 10;

/** A packed rectangle as the packer hands it back (its own declarations lose the type). */
interface Packed {
  x: number;
  y: number;
  width: number;
  height: number;
  rot: boolean;
  data: { id: string; copy: number };
}

const ORDERS: [string, (a: Piece, b: Piece) => number][] = [
  ['area', (a, b) => b.widthMm * b.heightMm - a.widthMm * a.heightMm],
  ['height', (a, b) => b.heightMm - a.heightMm || b.widthMm - a.widthMm],
  ['width', (a, b) => b.widthMm - a.widthMm || b.heightMm - a.heightMm],
  ['longest side', (a, b) => Math.max(b.widthMm, b.heightMm) - Math.max(a.widthMm, a.heightMm)],
];
const LOGICS: [string, PACKING_LOGIC][] = [
  ['max area', PACKING_LOGIC.MAX_AREA],
  ['max edge', PACKING_LOGIC.MAX_EDGE],
  ['fill width', PACKING_LOGIC.FILL_WIDTH],
];

/** The pieces that cannot fit the media's usable area however they are turned. */
export function oversized(pieces: Piece[], o: LayoutOptions): Piece[] {
  const w = o.media.widthMm - 2 * o.marginMm;
  const h = o.media.heightMm - 2 * o.marginMm;
  return pieces.filter((p) => {
    const fits = p.widthMm <= w && p.heightMm <= h;
    const turned = o.allowRotation && p.heightMm <= w && p.widthMm <= h;
    return !fits && !turned;
  });
}

/**
 * Lays every copy of every piece out on as few sheets of the media as the packer
 * (maxrects-packer's MaxRects) finds, trying each of several input orders with each of
 * its placement rules and keeping the best: fewest sheets, then the fullest first
 * sheets. Deterministic: the same pieces and options give the same layout. Pieces that
 * cannot fit are the caller's to refuse (see `oversized`).
 */
export function layOut(pieces: Piece[], o: LayoutOptions): Layout {
  const usableW = o.media.widthMm - 2 * o.marginMm;
  const usableH = o.media.heightMm - 2 * o.marginMm;
  const gutter = Math.round(o.gutterMm * UNIT);
  // the packer keeps `padding` between rectangles but not at the edges: the bin is grown
  // by one gutter, so a piece on the far edge keeps none beyond the usable area
  const binW = Math.floor(usableW * UNIT) + gutter;
  const binH = Math.floor(usableH * UNIT) + gutter;
  const placedArea = pieces.reduce((a, p) => a + p.widthMm * p.heightMm * p.copies, 0);
  const lowerBound = Math.max(1, Math.ceil(placedArea / (usableW * usableH)));
  let best: { sheets: Placement[][]; heuristic: string; score: number[] } | undefined;
  for (const [orderName, order] of ORDERS) {
    const sorted = [...pieces].sort(
      (a, b) => order(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    for (const [logicName, logic] of LOGICS) {
      const packer = new MaxRectsPacker(binW, binH, gutter, {
        smart: false,
        pot: false,
        square: false,
        allowRotation: o.allowRotation,
        border: 0,
        logic,
      });
      // a try that already needs more sheets than the best so far cannot win: stop it
      let beaten = false;
      adding: for (const p of sorted)
        for (let copy = 1; copy <= p.copies; copy++) {
          packer.add(
            Math.round(p.widthMm * UNIT) + gutter,
            Math.round(p.heightMm * UNIT) + gutter,
            { id: p.id, copy },
          );
          if (best && packer.bins.length > best.sheets.length) {
            beaten = true;
            break adding;
          }
        }
      if (beaten) continue;
      const bins = packer.bins as unknown as { rects: Packed[] }[];
      const sheets = bins.map((bin) =>
        bin.rects.map((r) => ({
          id: r.data.id,
          copy: r.data.copy,
          xMm: o.marginMm + r.x / UNIT,
          yMm: o.marginMm + r.y / UNIT,
          widthMm: (r.width - gutter) / UNIT,
          heightMm: (r.height - gutter) / UNIT,
          rotated: r.rot === true,
        })),
      );
      const fill = sheets.map((s) => s.reduce((a, p) => a + p.widthMm * p.heightMm, 0));
      // fewest sheets; then the fuller the earlier sheets, the emptier the last
      const score = [sheets.length, ...fill.map((f) => -f)];
      if (!best || lexLess(score, best.score))
        best = { sheets, heuristic: `${orderName}, ${logicName}`, score };
    }
  }
  const sheets = (best?.sheets ?? []).map((placements) => ({
    placements: placements.sort((a, b) => a.yMm - b.yMm || a.xMm - b.xMm),
    utilisation: placements.reduce((a, p) => a + p.widthMm * p.heightMm, 0) / (usableW * usableH),
  }));
  return {
    sheets,
    lowerBound,
    utilisation: sheets.length ? placedArea / (sheets.length * usableW * usableH) : 0,
    heuristic: best?.heuristic ?? 'none',
  };
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (Math.abs(x - y) > 1e-9) return x < y;
  }
  return false;
}

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
 * Identical copies past two sheets' worth are placed as a grid, whole sheets at a time,
 * and what is left goes to the packer in windows of at most this many copies: the
 * packer's cost grows with the square of what it holds (measured: 10,000 copies 2.3 s,
 * 40,000 copies 30 s), a grid's and the windows' only with the copies.
 */
export const PACK_WINDOW = 1500;

/**
 * Lays every copy of every piece out on few sheets: a piece with at least two sheets'
 * worth of copies fills whole sheets as a grid (`gridFor`), the rest is packed by
 * `pack` in windows of PACK_WINDOW copies (each window starts a sheet of its own, so a
 * batch of more than PACK_WINDOW mixed copies may use a few more sheets than one packing
 * would). Deterministic, and its time grows with the copies, not their square.
 */
export function layOut(pieces: Piece[], o: LayoutOptions): Layout {
  const usableW = o.media.widthMm - 2 * o.marginMm;
  const usableH = o.media.heightMm - 2 * o.marginMm;
  const placedArea = pieces.reduce((a, p) => a + p.widthMm * p.heightMm * p.copies, 0);
  const lowerBound = Math.max(1, Math.ceil(placedArea / (usableW * usableH)));
  const gridSheets: Placement[][] = [];
  const rest: (Piece & { firstCopy: number })[] = [];
  for (const p of [...pieces].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const grid = gridFor(p, o);
    const full = grid.length > 0 ? Math.floor(p.copies / grid.length) - 1 : 0;
    for (let sheet = 0; sheet < full; sheet++)
      gridSheets.push(grid.map((g, i) => ({ ...g, id: p.id, copy: sheet * grid.length + i + 1 })));
    const taken = Math.max(0, full) * grid.length;
    if (p.copies > taken) rest.push({ ...p, copies: p.copies - taken, firstCopy: taken + 1 });
  }
  // windows of whole pieces where they fit, a piece split only when it alone is larger
  const windows: (Piece & { firstCopy: number })[][] = [];
  let window: (Piece & { firstCopy: number })[] = [];
  let inWindow = 0;
  for (const p of rest) {
    let left = p;
    while (left.copies > 0) {
      const room = PACK_WINDOW - inWindow;
      if (left.copies > room && inWindow > 0) {
        windows.push(window);
        window = [];
        inWindow = 0;
        continue;
      }
      const n = Math.min(left.copies, PACK_WINDOW);
      window.push({ ...left, copies: n });
      inWindow += n;
      left = { ...left, copies: left.copies - n, firstCopy: left.firstCopy + n };
      if (inWindow >= PACK_WINDOW) {
        windows.push(window);
        window = [];
        inWindow = 0;
      }
    }
  }
  if (window.length) windows.push(window);
  const heuristics: string[] = gridSheets.length ? ['grid'] : [];
  const packedSheets: Placement[][] = [];
  for (const w of windows) {
    const packed = pack(w, o);
    packedSheets.push(...packed.sheets);
    if (!heuristics.includes(packed.heuristic)) heuristics.push(packed.heuristic);
  }
  const sheets = [...gridSheets, ...packedSheets].map((placements) => ({
    placements: placements.sort((a, b) => a.yMm - b.yMm || a.xMm - b.xMm),
    utilisation: placements.reduce((a, p) => a + p.widthMm * p.heightMm, 0) / (usableW * usableH),
  }));
  return {
    sheets,
    lowerBound,
    utilisation: sheets.length ? placedArea / (sheets.length * usableW * usableH) : 0,
    heuristic: heuristics.join(' + ') || 'none',
  };
}

type Spot = Omit<Placement, 'id' | 'copy'>;

/**
 * The most copies of one piece a sheet holds as a grid, and where: one orientation
 * throughout, or rows (columns) of one orientation and the space left filled with the
 * other. Empty when the piece does not fit.
 */
export function gridFor(p: Piece, o: LayoutOptions): Spot[] {
  const W = o.media.widthMm - 2 * o.marginMm;
  const H = o.media.heightMm - 2 * o.marginMm;
  const g = o.gutterMm;
  const across = (room: number, size: number) =>
    room + g >= size ? Math.floor((room + g) / (size + g)) : 0;
  const block = (
    x: number,
    y: number,
    w: number,
    h: number,
    pw: number,
    ph: number,
    rotated: boolean,
  ): Spot[] => {
    const cols = across(w, pw);
    const rows = across(h, ph);
    const out: Spot[] = [];
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++)
        out.push({
          xMm: o.marginMm + x + c * (pw + g),
          yMm: o.marginMm + y + r * (ph + g),
          widthMm: pw,
          heightMm: ph,
          rotated,
        });
    return out;
  };
  const orientations: [number, number, boolean][] = [[p.widthMm, p.heightMm, false]];
  if (o.allowRotation && p.widthMm !== p.heightMm) orientations.push([p.heightMm, p.widthMm, true]);
  let best: Spot[] = [];
  for (const [pw, ph, rotated] of orientations) {
    const other = orientations.find((x) => x[2] !== rotated);
    // k rows of this orientation, the height below them in the other
    for (let k = across(H, ph); k >= 1; k--) {
      const used = k * (ph + g);
      const spots = [
        ...block(0, 0, W, k * (ph + g) - g, pw, ph, rotated),
        ...(other ? block(0, used, W, H - used, other[0], other[1], other[2]) : []),
      ];
      if (spots.length > best.length) best = spots;
      if (!other) break;
    }
    // k columns of this orientation, the width beside them in the other
    if (other)
      for (let k = across(W, pw); k >= 1; k--) {
        const used = k * (pw + g);
        const spots = [
          ...block(0, 0, k * (pw + g) - g, H, pw, ph, rotated),
          ...block(used, 0, W - used, H, other[0], other[1], other[2]),
        ];
        if (spots.length > best.length) best = spots;
      }
  }
  return best;
}

/**
 * Lays every copy of every piece out on as few sheets of the media as the packer
 * (maxrects-packer's MaxRects) finds, trying each of several input orders with each of
 * its placement rules and keeping the best: fewest sheets, then the fullest first
 * sheets. Deterministic: the same pieces and options give the same layout. Pieces that
 * cannot fit are the caller's to refuse (see `oversized`).
 */
function pack(
  pieces: (Piece & { firstCopy: number })[],
  o: LayoutOptions,
): { sheets: Placement[][]; heuristic: string } {
  const usableW = o.media.widthMm - 2 * o.marginMm;
  const usableH = o.media.heightMm - 2 * o.marginMm;
  const gutter = Math.round(o.gutterMm * UNIT);
  // the packer keeps `padding` between rectangles but not at the edges: the bin is grown
  // by one gutter, so a piece on the far edge keeps none beyond the usable area
  const binW = Math.floor(usableW * UNIT) + gutter;
  const binH = Math.floor(usableH * UNIT) + gutter;
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
        for (let copy = p.firstCopy; copy < p.firstCopy + p.copies; copy++) {
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
  return { sheets: best?.sheets ?? [], heuristic: best?.heuristic ?? 'none' };
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (Math.abs(x - y) > 1e-9) return x < y;
  }
  return false;
}

/**
 * Cut and stack: one piece shape in a grid (`gridFor`), every copy of every piece in
 * order (a variable item's records, `copies` of each in a row), laid out so that the pile
 * of sheets, cut, gives one stack per grid position, each in order: position k of sheet s
 * holds the (k × sheets + s)th piece, so stack k holds pieces k × sheets + 1 to (k + 1) ×
 * sheets. The last stacks may be shorter, or empty.
 */
export function cutAndStack(
  pieces: Piece[],
  o: LayoutOptions,
): Layout & { stacks: { first: number; last: number }[] } {
  const [first] = pieces;
  if (!first)
    return { sheets: [], lowerBound: 0, utilisation: 0, heuristic: 'cut-and-stack', stacks: [] };
  const grid = gridFor(first, o);
  const order = pieces.flatMap((p) =>
    Array.from({ length: p.copies }, (_, c) => ({ id: p.id, copy: c + 1 })),
  );
  const sheets = Math.ceil(order.length / grid.length);
  const usable = (o.media.widthMm - 2 * o.marginMm) * (o.media.heightMm - 2 * o.marginMm);
  const out: Layout['sheets'] = [];
  for (let s = 0; s < sheets; s++) {
    const placements: Placement[] = [];
    for (const [k, spot] of grid.entries()) {
      const piece = order[k * sheets + s];
      if (piece) placements.push({ ...spot, ...piece });
    }
    const area = placements.reduce((a, p) => a + p.widthMm * p.heightMm, 0);
    out.push({ placements, utilisation: area / usable });
  }
  const placed = order.length * first.widthMm * first.heightMm;
  return {
    sheets: out,
    lowerBound: Math.max(1, Math.ceil(placed / usable)),
    utilisation: placed / (usable * Math.max(1, sheets)),
    heuristic: `cut-and-stack ${grid.length}-up`,
    stacks: grid.map((_, k) => ({
      first: k * sheets + 1,
      last: Math.min(order.length, (k + 1) * sheets),
    })),
  };
}

/**
 * The stacks of a cut-and-stack run, read back from its sheets' placements: one per
 * grid position (in the order sheet 1 lists them), with the first and last record (page)
 * it holds and how many pieces, top of the pile first.
 */
export function stacksOf(
  sheets: { placements: { xMm: number; yMm: number; page: number; copy: number }[] }[],
): { stack: number; xMm: number; yMm: number; first: number; last: number; pieces: number }[] {
  const stacks = new Map<string, { xMm: number; yMm: number; pages: number[] }>();
  for (const s of sheets)
    for (const p of s.placements) {
      const key = `${p.xMm},${p.yMm}`;
      const stack = stacks.get(key) ?? { xMm: p.xMm, yMm: p.yMm, pages: [] };
      stack.pages.push(p.page);
      stacks.set(key, stack);
    }
  return [...stacks.values()].map((s, k) => ({
    stack: k + 1,
    xMm: s.xMm,
    yMm: s.yMm,
    first: s.pages[0]!,
    last: s.pages.at(-1)!,
    pieces: s.pages.length,
  }));
}

import { describe, expect, it } from 'vitest';
import {
  gridFor,
  type Layout,
  layOut,
  oversized,
  PACK_WINDOW,
  type Piece,
} from '../../src/production/layout.ts';

const SRA3 = { widthMm: 320, heightMm: 450 };
const ROLL_560 = { widthMm: 560, heightMm: 1000 };

/** Every copy once; inside the usable area; no two overlapping (gutter kept between). */
function expectSound(
  layout: Layout,
  pieces: Piece[],
  o: { media: typeof SRA3; marginMm: number; gutterMm: number },
) {
  const seen = layout.sheets.flatMap((s) => s.placements.map((p) => `${p.id}#${p.copy}`));
  const wanted = pieces.flatMap((p) =>
    Array.from({ length: p.copies }, (_, i) => `${p.id}#${i + 1}`),
  );
  expect(seen.sort()).toEqual(wanted.sort());
  // every fault collected, then one assertion: forty thousand placements stay quick
  const faults: string[] = [];
  const eps = 1e-6;
  const byId = new Map(pieces.map((p) => [p.id, p]));
  for (const sheet of layout.sheets) {
    for (const p of sheet.placements) {
      const piece = byId.get(p.id)!;
      const [w, h] = p.rotated ? [piece.heightMm, piece.widthMm] : [piece.widthMm, piece.heightMm];
      if (p.widthMm !== w || p.heightMm !== h) faults.push(`${p.id}#${p.copy}: size`);
      if (
        p.xMm < o.marginMm - eps ||
        p.yMm < o.marginMm - eps ||
        p.xMm + p.widthMm > o.media.widthMm - o.marginMm + eps ||
        p.yMm + p.heightMm > o.media.heightMm - o.marginMm + eps
      )
        faults.push(`${p.id}#${p.copy}: outside the usable area`);
    }
    const ps = sheet.placements;
    for (let i = 0; i < ps.length; i++)
      for (let j = i + 1; j < ps.length; j++) {
        const a = ps[i]!;
        const b = ps[j]!;
        const apart =
          a.xMm + a.widthMm + o.gutterMm <= b.xMm + eps ||
          b.xMm + b.widthMm + o.gutterMm <= a.xMm + eps ||
          a.yMm + a.heightMm + o.gutterMm <= b.yMm + eps ||
          b.yMm + b.heightMm + o.gutterMm <= a.yMm + eps;
        if (!apart) faults.push(`${a.id}#${a.copy} and ${b.id}#${b.copy} overlap`);
      }
  }
  expect(faults.slice(0, 10)).toEqual([]);
}

describe('imposition layout', () => {
  it('lays 40,000 identical stickers out as full grids, each copy once, on the fewest sheets a grid allows', () => {
    const pieces = [{ id: 'sticker', widthMm: 56, heightMm: 36, copies: 40_000 }];
    const o = { media: SRA3, marginMm: 5, gutterMm: 2, allowRotation: true };
    const perSheet = gridFor(pieces[0]!, o).length;
    // 310 x 440 usable: 5 across x 11 down (56+2, 36+2), or 8 x 7 turned, or a mix of both
    expect(perSheet).toBeGreaterThanOrEqual(56);
    const layout = layOut(pieces, o);
    expectSound(layout, pieces, o);
    expect(layout.sheets.length).toBeLessThanOrEqual(Math.ceil(40_000 / perSheet));
    expect(layout.heuristic).toMatch(/^grid/);
  });

  it('packs many mixed copies in windows: every copy once, within a few sheets of the lower bound', () => {
    const pieces = Array.from({ length: 400 }, (_, i) => ({
      id: `p-${String(i).padStart(3, '0')}`,
      widthMm: 40 + (i % 7) * 9,
      heightMm: 30 + (i % 5) * 11,
      copies: 1 + (i % 19),
    }));
    const copies = pieces.reduce((n, p) => n + p.copies, 0);
    expect(copies).toBeGreaterThan(2 * PACK_WINDOW);
    const o = { media: SRA3, marginMm: 5, gutterMm: 2, allowRotation: true };
    const layout = layOut(pieces, o);
    expectSound(layout, pieces, o);
    const windows = Math.ceil(copies / PACK_WINDOW);
    expect(layout.sheets.length).toBeLessThanOrEqual(Math.ceil(layout.lowerBound * 1.25) + windows);
  });

  it('puts 40 business cards with bleed 21-up on SRA3, each copy once', () => {
    // 85 x 55 mm trimmed, 3 mm bleed each side: 91 x 61 mm placed
    const pieces = Array.from({ length: 40 }, (_, i) => ({
      id: `card-${i}`,
      widthMm: 91,
      heightMm: 61,
      copies: (i % 3) + 1,
    }));
    const o = { media: SRA3, marginMm: 5, gutterMm: 0, allowRotation: true };
    const layout = layOut(pieces, o);
    expectSound(layout, pieces, o);
    const copies = pieces.reduce((n, p) => n + p.copies, 0);
    expect(layout.sheets[0]!.placements.length).toBeGreaterThanOrEqual(21);
    expect(layout.sheets.length).toBe(Math.ceil(copies / layout.sheets[0]!.placements.length));
    expect(layout.lowerBound).toBe(Math.ceil((copies * 91 * 61) / (310 * 440)));
  });

  it('nests 200 mixed stickers on a roll with rotation: no overlaps, close to the area bound', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = Array.from({ length: 200 }, (_, i) => ({
      id: `sticker-${i}`,
      widthMm: 20 + Math.round(random() * 130),
      heightMm: 20 + Math.round(random() * 130),
      copies: 1,
    }));
    const o = { media: ROLL_560, marginMm: 10, gutterMm: 3, allowRotation: true };
    const layout = layOut(pieces, o);
    expectSound(layout, pieces, o);
    expect(layout.sheets.some((s) => s.placements.some((p) => p.rotated))).toBe(true);
    expect(layout.sheets.length).toBeLessThanOrEqual(Math.ceil(layout.lowerBound * 1.5));
  });

  it('is the same layout every time for the same pieces, whatever their order', () => {
    const pieces = Array.from({ length: 30 }, (_, i) => ({
      id: `p${i}`,
      widthMm: 30 + ((i * 37) % 90),
      heightMm: 25 + ((i * 53) % 70),
      copies: 1 + (i % 2),
    }));
    const o = { media: SRA3, marginMm: 8, gutterMm: 2, allowRotation: false };
    const a = layOut(pieces, o);
    const b = layOut([...pieces].reverse(), o);
    expect(b).toEqual(a);
    expectSound(a, pieces, o);
    expect(a.sheets.every((s) => s.placements.every((p) => !p.rotated))).toBe(true);
  });

  it('names the pieces that cannot fit, turned or not', () => {
    const o = { media: SRA3, marginMm: 5, gutterMm: 0, allowRotation: false };
    const pieces = [
      { id: 'fits', widthMm: 300, heightMm: 100, copies: 1 },
      { id: 'wide', widthMm: 400, heightMm: 100, copies: 1 },
    ];
    expect(oversized(pieces, o).map((p) => p.id)).toEqual(['wide']);
    expect(oversized(pieces, { ...o, allowRotation: true }).map((p) => p.id)).toEqual([]);
  });
});

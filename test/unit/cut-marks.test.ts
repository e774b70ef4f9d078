import { describe, expect, it } from 'vitest';
import { cutMarks, MARK_GAP_MM, type Rect } from '../../src/production/marks.ts';

const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe('cut marks', () => {
  const piece = (x: number, y: number) => ({
    bleed: { x, y, w: 91, h: 61 },
    trim: { x: x + 3, y: y + 3, w: 85, h: 55 },
  });
  const sheet = { x: 0, y: 0, w: 320, h: 450 };

  it('stay outside every bleed and on the sheet, even between pieces laid edge to edge', () => {
    const pieces = [];
    for (let r = 0; r < 7; r++)
      for (let c = 0; c < 3; c++) pieces.push(piece(5 + c * 91, 5 + r * 61));
    const marks = cutMarks(pieces, sheet);
    expect(marks.length).toBeGreaterThan(20);
    for (const m of marks) {
      const seg = {
        x: Math.min(m.x1, m.x2),
        y: Math.min(m.y1, m.y2),
        w: Math.max(Math.abs(m.x2 - m.x1), 1e-6),
        h: Math.max(Math.abs(m.y2 - m.y1), 1e-6),
      };
      for (const p of pieces) expect(overlaps(seg, p.bleed)).toBe(false);
      expect(seg.x).toBeGreaterThanOrEqual(0);
      expect(seg.y + seg.h).toBeLessThanOrEqual(450);
    }
  });

  it('mark every trim corner of a piece standing alone, from 1 mm beyond its bleed', () => {
    const marks = cutMarks([piece(100, 100)], sheet);
    expect(marks).toHaveLength(8);
    const left = marks.filter((m) => m.x1 === 100 - MARK_GAP_MM);
    expect(left.map((m) => m.y1).sort()).toEqual([103, 158]);
  });

  it('keep out of what must stay clear (the slug)', () => {
    const slug = { x: 5, y: 433, w: 310, h: 12 };
    const marks = cutMarks([piece(5, 370)], sheet, [slug]);
    for (const m of marks)
      expect(Math.max(m.y1, m.y2) <= 433 || Math.min(m.y1, m.y2) >= 445).toBe(true);
  });
});

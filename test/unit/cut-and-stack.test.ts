import { describe, expect, it } from 'vitest';
import { cutAndStack, stacksOf } from '../../src/production/layout.ts';

describe('cut and stack', () => {
  const options = {
    media: { widthMm: 190, heightMm: 298 },
    gutterMm: 0,
    marginMm: 5,
    allowRotation: false,
  };
  const records = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `item:${i + 1}`,
      widthMm: 86,
      heightMm: 56,
      copies: 1,
    }));

  it('puts records in stacks: position k of sheet s holds record k x sheets + s, every record once', () => {
    const layout = cutAndStack(records(95), options);
    expect(layout.sheets).toHaveLength(10);
    expect(layout.stacks).toEqual(
      Array.from({ length: 10 }, (_, k) => ({
        first: k * 10 + 1,
        last: Math.min(95, k * 10 + 10),
      })),
    );
    const placed = layout.sheets.flatMap((s) =>
      s.placements.map((p) => Number(p.id.split(':')[1])),
    );
    expect(placed.sort((x, y) => x - y)).toEqual(Array.from({ length: 95 }, (_, i) => i + 1));
    // read back from the placements, as the job sheet and the ticket do
    const stacks = stacksOf(
      layout.sheets.map((s) => ({
        placements: s.placements.map((p) => ({ ...p, page: Number(p.id.split(':')[1]) })),
      })),
    );
    expect(stacks.map((s) => [s.first, s.last, s.pieces])).toEqual(
      layout.stacks.map((s) => [s.first, s.last, s.last - s.first + 1]),
    );
  });

  it('repeats each record its copies in a row, within its stack', () => {
    const layout = cutAndStack(
      records(3).map((p) => ({ ...p, copies: 4 })),
      options,
    );
    // 12 pieces on a 10-up grid: 2 sheets, stacks of two
    expect(layout.sheets).toHaveLength(2);
    const first = layout.sheets.map((s) => s.placements[0]!);
    expect(first.map((p) => [p.id, p.copy])).toEqual([
      ['item:1', 1],
      ['item:1', 2],
    ]);
  });
});

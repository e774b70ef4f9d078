import { describe, expect, it } from 'vitest';
import { routingInOrder } from '../../src/app/routing.ts';
import type { FacilityForRouting } from '../../src/domain/facility/routing.ts';

const facility = (id: string, day: number, open: number): FacilityForRouting => ({
  facilityId: id,
  name: id,
  country: 'DE',
  timezone: 'UTC',
  paused: false,
  printMethods: ['digital'],
  itemsPerDay: 5,
  workingDays: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
  holidays: [],
  routedByDay: new Map([['2026-11-27', day]]),
  open,
});
const at = (n: number) => ({ commit: BigInt(n), prepare: 0n });

describe('routing decisions in order', () => {
  it('adds the decisions appended after the loads were counted, and only those', () => {
    const inOrder = routingInOrder();
    const loads = [facility('a', 2, 4), facility('b', 0, 1)];
    inOrder.appended(
      at(10),
      { facilityId: null, day: null },
      { facilityId: 'a', day: '2026-11-27' },
    );
    // moved from a to b (a paused facility's item, say)
    inOrder.appended(
      at(11),
      { facilityId: 'a', day: '2026-11-27' },
      { facilityId: 'b', day: '2026-11-28' },
    );
    // loads as of before both: both added (the first, then moved on)
    const before = inOrder.counted(loads, at(9));
    expect(before.map((f) => [f.routedByDay.get('2026-11-27'), f.open])).toEqual([
      [2, 4],
      [0, 2],
    ]);
    expect(before[1]!.routedByDay.get('2026-11-28')).toBe(1);
    // the loads read took the first: only the move is added
    const after = inOrder.counted([facility('a', 3, 5), facility('b', 0, 1)], at(10));
    expect(after.map((f) => [f.routedByDay.get('2026-11-27'), f.open])).toEqual([
      [2, 4],
      [0, 2],
    ]);
    // they took both: nothing is added, and the loads are given back as read
    const taken = [facility('a', 2, 4), facility('b', 0, 2)];
    expect(inOrder.counted(taken, at(11))).toBe(taken);
    // the loads given are never changed
    expect(loads[0]!.routedByDay.get('2026-11-27')).toBe(2);
  });
});

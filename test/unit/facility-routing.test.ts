import { describe, expect, it } from 'vitest';
import {
  decideRoute,
  type FacilityForRouting,
  firstFreeDay,
  withLaterRoutings,
  workingDeadline,
} from '../../src/domain/facility/routing.ts';

const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

const facility = (
  id: string,
  name: string,
  country: string,
  printMethods: string[],
  more: Partial<FacilityForRouting> = {},
): FacilityForRouting => ({
  facilityId: id,
  name,
  country,
  timezone: 'Europe/Berlin',
  paused: false,
  printMethods,
  itemsPerDay: 100,
  workingDays: ['mon', 'tue', 'wed', 'thu', 'fri'],
  holidays: [],
  routedByDay: new Map(),
  open: 0,
  ...more,
});
const BERLIN = '11111111-1111-4111-8111-111111111111';
const KRAKOW = '22222222-2222-4222-8222-222222222222';
const LISBON = '33333333-3333-4333-8333-333333333333';
// Friday 27 November 2026, 10:00 in Berlin
const friday = new Date('2026-11-27T09:00:00Z');
const three = (more: Partial<Record<string, Partial<FacilityForRouting>>> = {}) => [
  facility(BERLIN, 'Berlin', 'DE', ['digital'], more.berlin),
  facility(KRAKOW, 'Kraków', 'PL', ['screen', 'digital'], more.krakow),
  facility(LISBON, 'Lisbon', 'PT', ['embroidery'], { itemsPerDay: 5, ...more.lisbon }),
];
const item = (printMethod: string, widthMm = 100, heightMm = 100) => ({
  printMethod,
  widthMm,
  heightMm,
});
const verdicts = (r: ReturnType<typeof decideRoute>) =>
  Object.fromEntries(r.reason.candidates.map((c) => [c.name, `${c.verdict}: ${c.detail}`]));

describe('routing decisions', () => {
  it('sends an item where its print method is, and says why of every facility', () => {
    const r = decideRoute(item('screen'), 'DE', three(), friday);
    expect(r.facilityId).toBe(KRAKOW);
    expect(r.reason.rule).toBe('only_capable');
    expect(r.day).toBe('2026-11-27');
    expect(verdicts(r)).toEqual({
      Berlin: 'cannot_print: cannot print screen',
      Kraków: 'chosen: prints screen, 0 of 100 taken on 2026-11-27',
      Lisbon: 'cannot_print: cannot print screen',
    });
  });

  it("prefers the recipient's country among those that can make it, then the least loaded", () => {
    const toPoland = decideRoute(item('digital'), 'PL', three(), friday);
    expect(toPoland.facilityId).toBe(KRAKOW);
    expect(toPoland.reason.rule).toBe('recipient_country');
    expect(verdicts(toPoland).Berlin).toBe('other_country: is not in PL');
    const toFrance = decideRoute(
      item('digital'),
      'FR',
      three({ berlin: { open: 7 }, krakow: { open: 3 } }),
      friday,
    );
    expect(toFrance.facilityId).toBe(KRAKOW);
    expect(toFrance.reason.rule).toBe('least_loaded');
    expect(verdicts(toFrance).Berlin).toBe('more_loaded: has 7 open items (Kraków 3)');
  });

  it("takes the next working day's capacity when today's is gone (weekends and holidays skipped)", () => {
    const full = three({
      lisbon: { routedByDay: new Map([['2026-11-27', 5]]), holidays: ['2026-11-30'] },
    });
    const r = decideRoute(item('embroidery'), 'PT', full, friday);
    expect(r.facilityId).toBe(LISBON);
    // Saturday and Sunday are not working days, Monday 30th is a holiday
    expect(r.day).toBe('2026-12-01');
    // a facility with room today wins over one full until later
    const both = three({
      berlin: { routedByDay: new Map([['2026-11-27', 100]]) },
    });
    const d = decideRoute(item('digital'), 'FR', both, friday);
    expect(d.facilityId).toBe(KRAKOW);
    expect(d.reason.rule).toBe('capacity');
    expect(verdicts(d).Berlin).toBe('full: is full until 2026-11-30');
  });

  it('skips paused facilities and those the item is too large for; none left is unroutable', () => {
    const r = decideRoute(
      item('digital', 600, 300),
      'DE',
      three({ berlin: { paused: true }, krakow: { maxItemMm: { width: 400, height: 500 } } }),
      friday,
    );
    expect(r).toMatchObject({ facilityId: null, day: null, reason: { rule: 'unroutable' } });
    expect(verdicts(r)).toEqual({
      Berlin: 'paused: is paused',
      Kraków: 'too_large: takes items up to 400 × 500 mm (this one is 600 × 300)',
      Lisbon: 'cannot_print: cannot print digital',
    });
    // turned, it fits
    expect(
      decideRoute(
        item('digital', 450, 300),
        'DE',
        three({ berlin: { paused: true }, krakow: { maxItemMm: { width: 400, height: 500 } } }),
        friday,
      ).facilityId,
    ).toBe(KRAKOW);
  });

  it("counts the ship-by clock on the facility's working days only", () => {
    const berlin = facility(BERLIN, 'Berlin', 'DE', ['digital'], { holidays: ['2026-12-01'] });
    // 72 hours from Friday 10:00: Saturday and Sunday do not count, nor Tuesday's holiday
    expect(workingDeadline(berlin, friday, 72 * 3_600_000).toISOString()).toBe(
      '2026-12-03T09:00:00.000Z',
    );
    // a facility that works every day keeps the label's deadline as it is
    const always = { ...berlin, workingDays: [...EVERY_DAY], holidays: [] };
    expect(workingDeadline(always, friday, 72 * 3_600_000).toISOString()).toBe(
      '2026-11-30T09:00:00.000Z',
    );
    // and routing records it for the chosen facility
    const r = decideRoute(item('digital'), 'DE', three(), friday, {
      start: friday,
      ms: 24 * 3_600_000,
    });
    // Friday + 24 h is Saturday: Saturday and Sunday are days off, so Monday
    expect(r.shipBy).toBe('2026-11-30T09:00:00.000Z');
  });

  it("counts a facility's day in its own time zone", () => {
    // 23:30 UTC on Friday is already Saturday in Tokyo: its first working day is Monday
    const tokyo = facility(BERLIN, 'Tokyo', 'JP', ['digital'], { timezone: 'Asia/Tokyo' });
    expect(firstFreeDay(tokyo, new Date('2026-11-27T23:30:00Z'))).toBe('2026-11-30');
    expect(
      firstFreeDay({ ...tokyo, timezone: 'America/New_York' }, new Date('2026-11-27T23:30:00Z')),
    ).toBe('2026-11-27');
  });

  it('adds the routings the loads do not count yet, moving an item off where it was', () => {
    const day = '2026-11-27';
    const loads = three({ berlin: { routedByDay: new Map([[day, 2]]), open: 4 } });
    const later = withLaterRoutings(loads, [
      // first routed to Berlin, then moved to Kraków for the next day (a pause, say)
      { facilityId: BERLIN, day, from: null },
      { facilityId: KRAKOW, day: '2026-11-28', from: { facilityId: BERLIN, day } },
      // one that waited as unroutable
      { facilityId: KRAKOW, day, from: { facilityId: null, day: null } },
    ]);
    const [berlin, krakow] = later;
    expect([berlin!.routedByDay.get(day), berlin!.open]).toEqual([2, 4]);
    expect([
      krakow!.routedByDay.get('2026-11-28'),
      krakow!.routedByDay.get(day),
      krakow!.open,
    ]).toEqual([1, 1, 2]);
    // the loads given are never changed; none later gives them back as they are
    expect(loads[0]!.routedByDay.get(day)).toBe(2);
    expect(withLaterRoutings(loads, [])).toBe(loads);
  });
});

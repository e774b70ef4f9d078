import type { RoutingCandidate } from '../order/routing-events.ts';
import type { Routing } from '../order/state.ts';
import { addDays, calendarOf, DAYS_AHEAD } from './calendar.ts';
import type { Weekday } from './events.ts';

/*
 * A routing decision, made from the facilities as they are: first the facilities that can
 * make the item (not paused, its print method, its size), then the label's rules in order:
 * the recipient's country, capacity left on the working day, the least loaded. Every
 * facility gets its verdict, so the decision reads as a sentence and can be checked later.
 */

export interface FacilityForRouting {
  facilityId: string;
  name: string;
  country: string;
  timezone: string;
  paused: boolean;
  printMethods: string[];
  maxItemMm?: { width: number; height: number } | undefined;
  itemsPerDay: number;
  workingDays: Weekday[];
  holidays: string[];
  /** items routed to it, by the working day whose capacity they took (from today on) */
  routedByDay: ReadonlyMap<string, number>;
  /** its items not yet shipped */
  open: number;
}

export interface ItemForRouting {
  printMethod: string;
  /** its largest print area */
  widthMm: number;
  heightMm: number;
}

/*
 * A formatter costs far more to make than to use, and using one costs tens of
 * microseconds: one per time zone, and its last answer kept for the quarter hour it holds
 * for. A zone's date changes at its midnight, and every zone's offset (and every switch
 * of it) falls on a quarter hour of UTC, so the date is the same throughout one.
 */
const QUARTER_HOUR_MS = 900_000;
const zones = new Map<string, { format: Intl.DateTimeFormat; quarter: number; date: string }>();

/** The calendar date at `now` in a time zone (YYYY-MM-DD). */
export function dateIn(timezone: string, now: Date): string {
  const quarter = Math.floor(now.getTime() / QUARTER_HOUR_MS);
  let zone = zones.get(timezone);
  if (zone?.quarter === quarter) return zone.date;
  zone ??= {
    format: new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }),
    quarter,
    date: '',
  };
  zone.quarter = quarter;
  zone.date = zone.format.format(now);
  zones.set(timezone, zone);
  return zone.date;
}

/** Whether a facility works on a date (its working days, not its holidays). */
export const worksOn = (f: Pick<FacilityForRouting, 'workingDays' | 'holidays'>, date: string) =>
  calendarOf(f).worksOn(date);

/**
 * Its first working day from today (in its time zone) with capacity left; undefined: none within a
 * year.
 */
export function firstFreeDay(f: FacilityForRouting, now: Date): string | undefined {
  for (const day of calendarOf(f).workingDatesFrom(dateIn(f.timezone, now)))
    if ((f.routedByDay.get(day) ?? 0) < f.itemsPerDay) return day;
  return undefined;
}

/**
 * A deadline `ms` after `start`, counted on a facility's working days only (in its time
 * zone): each day off from the start's day to the deadline's adds a day, so a deadline
 * never falls on a weekend or a holiday of the facility.
 */
export function workingDeadline(
  f: Pick<FacilityForRouting, 'timezone' | 'workingDays' | 'holidays'>,
  start: Date,
  ms: number,
): Date {
  let end = start.getTime() + ms;
  let day = dateIn(f.timezone, start);
  for (let i = 0; i < DAYS_AHEAD && day <= dateIn(f.timezone, new Date(end)); i++) {
    if (!worksOn(f, day)) end += 86_400_000;
    day = addDays(day, 1);
  }
  return new Date(end);
}

/** A routing as the loads take it: where the item goes, and where it was. */
export type RoutedFacts = {
  facilityId: string | null;
  day: string | null;
  from: { facilityId: string | null; day: string | null } | null;
};

/**
 * The facilities' loads with routings they do not count yet (those after the loads'
 * checkpoint, in log order) added: each takes its day's capacity and an open item where
 * it goes, and gives them back where it was. The loads given are not changed.
 */
export function withLaterRoutings(
  facilities: FacilityForRouting[],
  later: RoutedFacts[],
): FacilityForRouting[] {
  if (later.length === 0) return facilities;
  const byId = new Map(
    facilities.map((f) => [f.facilityId, { ...f, routedByDay: new Map(f.routedByDay) }]),
  );
  const move = (facilityId: string | null, day: string | null, by: number) => {
    const f = facilityId ? byId.get(facilityId) : undefined;
    if (!f) return;
    f.open += by;
    if (day) f.routedByDay.set(day, (f.routedByDay.get(day) ?? 0) + by);
  };
  for (const r of later) {
    if (r.from) move(r.from.facilityId, r.from.day, -1);
    move(r.facilityId, r.day, 1);
  }
  return [...byId.values()];
}

const fits = (item: ItemForRouting, max: { width: number; height: number } | undefined) =>
  !max ||
  (item.widthMm <= max.width && item.heightMm <= max.height) ||
  (item.widthMm <= max.height && item.heightMm <= max.width);

export function decideRoute(
  item: ItemForRouting,
  recipientCountry: string | null,
  facilities: FacilityForRouting[],
  now: Date,
  /**
   * the order's ship-by clock (its start and length), to count on the chosen facility's working
   * days
   */
  shipWithin?: { start: Date; ms: number } | undefined,
): Routing {
  const verdicts = new Map<string, Omit<RoutingCandidate, 'facilityId' | 'name'>>();
  const method = item.printMethod.toLowerCase();
  let left = facilities.filter((f) => {
    if (f.paused) verdicts.set(f.facilityId, { verdict: 'paused', detail: 'is paused' });
    else if (!f.printMethods.some((m) => m.toLowerCase() === method))
      verdicts.set(f.facilityId, { verdict: 'cannot_print', detail: `cannot print ${method}` });
    else if (!fits(item, f.maxItemMm))
      verdicts.set(f.facilityId, {
        verdict: 'too_large',
        detail: `takes items up to ${f.maxItemMm!.width} × ${f.maxItemMm!.height} mm (this one is ${item.widthMm} × ${item.heightMm})`,
      });
    else return true;
    return false;
  });
  const candidates = (chosen?: string): RoutingCandidate[] =>
    facilities.map((f) => ({
      facilityId: f.facilityId,
      name: f.name,
      ...(f.facilityId === chosen
        ? { verdict: 'chosen' as const, detail: chosenDetail(f) }
        : (verdicts.get(f.facilityId) ?? {
            verdict: 'not_chosen' as const,
            detail: 'was not chosen',
          })),
    }));
  const days = new Map<string, string | undefined>();
  const chosenDetail = (f: FacilityForRouting) =>
    `prints ${method}${recipientCountry && f.country === recipientCountry ? ` in ${f.country}` : ''}${
      days.get(f.facilityId)
        ? `, ${f.routedByDay.get(days.get(f.facilityId)!) ?? 0} of ${f.itemsPerDay} taken on ${days.get(f.facilityId)}`
        : ''
    }`;
  if (left.length === 0)
    return {
      facilityId: null,
      day: null,
      shipBy: null,
      reason: { rule: 'unroutable', candidates: candidates() },
    };
  let rule: Routing['reason']['rule'] = 'only_capable';
  const narrow = (kept: FacilityForRouting[], by: Routing['reason']['rule']) => {
    if (kept.length > 0 && kept.length < left.length) {
      left = kept;
      rule = by;
    }
  };
  if (left.length > 1 && recipientCountry) {
    const home = left.filter((f) => f.country === recipientCountry);
    if (home.length > 0)
      for (const f of left)
        if (f.country !== recipientCountry)
          verdicts.set(f.facilityId, {
            verdict: 'other_country',
            detail: `is not in ${recipientCountry}`,
          });
    narrow(home, 'recipient_country');
  }
  for (const f of left) days.set(f.facilityId, firstFreeDay(f, now));
  const dated = left.filter((f) => days.get(f.facilityId) !== undefined);
  if (dated.length === 0) {
    for (const f of left)
      verdicts.set(f.facilityId, { verdict: 'full', detail: 'is full for the next year' });
    return {
      facilityId: null,
      day: null,
      shipBy: null,
      reason: { rule: 'unroutable', candidates: candidates() },
    };
  }
  const earliest = dated.map((f) => days.get(f.facilityId)!).sort()[0]!;
  for (const f of left) {
    const d = days.get(f.facilityId);
    if (d !== earliest)
      verdicts.set(f.facilityId, {
        verdict: 'full',
        detail: d ? `is full until ${d}` : 'is full for the next year',
      });
  }
  if (left.length > 1)
    narrow(
      dated.filter((f) => days.get(f.facilityId) === earliest),
      'capacity',
    );
  if (left.length > 1) {
    const sorted = [...left].sort(
      (a, b) =>
        a.open - b.open || a.name.localeCompare(b.name) || a.facilityId.localeCompare(b.facilityId),
    );
    const best = sorted[0]!;
    for (const f of sorted.slice(1))
      verdicts.set(f.facilityId, {
        verdict: 'more_loaded',
        detail: `has ${f.open} open items (${best.name} ${best.open})`,
      });
    left = [best];
    rule = 'least_loaded';
  }
  const chosen = left[0]!;
  return {
    facilityId: chosen.facilityId,
    day: days.get(chosen.facilityId) ?? null,
    shipBy: shipWithin
      ? workingDeadline(chosen, shipWithin.start, shipWithin.ms).toISOString()
      : null,
    reason: { rule, candidates: candidates(chosen.facilityId) },
  };
}

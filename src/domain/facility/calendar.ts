import { WEEKDAYS, type Weekday } from './events.ts';

/**
 * A facility's working calendar: its working days less its holidays, as the dates it
 * works on for a year ahead. Routing asks it for every item of every order; it is built
 * once when a facility's days change (and kept for the next reads), so an item costs a
 * walk over the facility's working dates at most, never a year of dates each checked
 * against every holiday.
 */

/**
 * How far ahead a facility's working dates are known (a full facility's next free day is looked for
 * that far).
 */
export const DAYS_AHEAD = 366;

const DAY_MS = 86_400_000;
const epochDay = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
// 1970-01-01 was a Thursday
const weekdayOfDay = (day: number): Weekday => WEEKDAYS[(day + 3) % 7]!;

export const addDays = (date: string, n: number) => dateOf(epochDay(date) + n);
export const weekdayOf = (date: string): Weekday => weekdayOfDay(epochDay(date));

export class WorkingCalendar {
  private readonly holidays: ReadonlySet<string>;
  private readonly weekdays: ReadonlySet<Weekday>;
  /** the working dates from one date on (the last asked for: "today" changes once a day) */
  private ahead: { from: string; dates: string[] } | undefined;

  constructor(workingDays: readonly Weekday[], holidays: readonly string[]) {
    this.weekdays = new Set(workingDays);
    this.holidays = new Set(holidays);
  }

  worksOn(date: string): boolean {
    return this.weekdays.has(weekdayOf(date)) && !this.holidays.has(date);
  }

  /** Its working dates from `from` (included) for DAYS_AHEAD days, in order. */
  workingDatesFrom(from: string): readonly string[] {
    if (this.ahead?.from === from) return this.ahead.dates;
    const dates: string[] = [];
    if (this.weekdays.size > 0) {
      const first = epochDay(from);
      for (let day = first; day < first + DAYS_AHEAD; day++) {
        if (!this.weekdays.has(weekdayOfDay(day))) continue;
        const date = dateOf(day);
        if (!this.holidays.has(date)) dates.push(date);
      }
    }
    this.ahead = { from, dates };
    return dates;
  }
}

/*
 * Calendars by what they are made of: a facility read again (every order reads its
 * label's facilities) finds the calendar its unchanged days made last time. At most
 * KEPT are kept (the least recently used go first): a label holds at most 50 facilities.
 */
const KEPT = 512;
const byContent = new Map<string, WorkingCalendar>();
const byArray = new WeakMap<readonly string[], { days: string; calendar: WorkingCalendar }>();

/** The calendar of a facility's working days and holidays. */
export function calendarOf(f: {
  workingDays: readonly Weekday[];
  holidays: readonly string[];
}): WorkingCalendar {
  const days = f.workingDays.join(',');
  // the same read's facility (or a copy of it): no key to build
  const same = byArray.get(f.holidays);
  if (same?.days === days) return same.calendar;
  const key = `${days}|${f.holidays.join(',')}`;
  let calendar = byContent.get(key);
  if (calendar) byContent.delete(key);
  else calendar = new WorkingCalendar(f.workingDays, f.holidays);
  byContent.set(key, calendar);
  if (byContent.size > KEPT) byContent.delete(byContent.keys().next().value!);
  byArray.set(f.holidays, { days, calendar });
  return calendar;
}

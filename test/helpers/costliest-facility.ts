const DAY_MS = 86_400_000;
/** a Wednesday: 1970-01-01 (epoch day 0) was a Thursday */
const isWednesday = (epochDay: number) => (epochDay + 3) % 7 === 2;

/**
 * A facility as a label may make it at its costliest for routing: 366 holidays (the most
 * it may have), every day from yesterday on but Wednesdays, so looking for a free day walks
 * its calendar week by week; one item a day; time zones alternating. The day left each week
 * is a working day whatever today is (a day left by its distance from today fell on a
 * weekend on Sundays and Mondays, and no item could be routed), and "today" in either zone
 * is covered from yesterday on.
 */
export function costliestFacility(n: number) {
  const yesterday = Math.floor(Date.now() / DAY_MS) - 1;
  const holidays: string[] = [];
  for (let day = yesterday; holidays.length < 366; day++)
    if (!isWednesday(day)) holidays.push(new Date(day * DAY_MS).toISOString().slice(0, 10));
  return {
    name: `Plant ${n}`,
    country: 'DE',
    timezone: n % 2 ? 'Europe/Berlin' : 'America/New_York',
    capabilities: { printMethods: ['digital'] },
    capacity: { itemsPerDay: 1 },
    holidays,
  };
}

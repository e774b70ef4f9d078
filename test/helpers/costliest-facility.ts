/**
 * A facility as a label may make it at its costliest for routing: 366 holidays (the most
 * it may have) from today on, every seventh day left working, so looking for a free day
 * walks the year to its end; one item a day; time zones alternating.
 */
export function costliestFacility(n: number) {
  const day0 = Date.now();
  const holidays = Array.from({ length: 366 }, (_, i) =>
    new Date(day0 + (i + Math.floor(i / 6)) * 86_400_000).toISOString().slice(0, 10),
  );
  return {
    name: `Plant ${n}`,
    country: 'DE',
    timezone: n % 2 ? 'Europe/Berlin' : 'America/New_York',
    capabilities: { printMethods: ['digital'] },
    capacity: { itemsPerDay: 1 },
    holidays,
  };
}

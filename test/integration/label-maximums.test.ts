import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_MAXIMUMS } from '../../src/domain/shared/maximums.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { type Label, newLabel } from '../helpers/fixtures.ts';

/**
 * A label's collections have maximums, held also when the label's own requests race
 * for the last places: the race ends with exactly the maximum, the rest 409
 * limit_reached, and another label is not affected.
 */
describe("a label's collection maximums", () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let label: Label;
  let other: Label;
  const facility = (n: number) => ({
    name: `Plant ${n}`,
    country: 'DE',
    timezone: 'Europe/Berlin',
    capabilities: { printMethods: ['digital'] },
    capacity: { itemsPerDay: 100 },
  });
  const register = (l: Label, n: number) =>
    call('POST', '/api/facilities', { key: l.adminApiKey, body: facility(n) });

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    label = await newLabel(call, t, 'Many plants');
    other = await newLabel(call, t, 'One plant');
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('registers facilities up to the maximum, and of ten racing for the last two takes exactly two', async () => {
    const max = LABEL_MAXIMUMS.facilities;
    for (let n = 0; n < max - 2; n++) {
      const r = await register(label, n);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const raced = await Promise.all(Array.from({ length: 10 }, (_, i) => register(label, 100 + i)));
    expect(raced.filter((r) => r.status === 201)).toHaveLength(2);
    const refused = raced.filter((r) => r.status !== 201);
    for (const r of refused) {
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('limit_reached');
      expect(r.body.detail).toBe(
        `a label holds at most ${max} facilities, and this one holds ${max}`,
      );
    }
    const listed = await call('GET', '/api/facilities', { key: label.adminApiKey });
    expect(listed.body).toHaveLength(max);
    // a refused registration left nothing behind: no event of it
    const events = await t.app.db.pool.query(
      "SELECT count(*)::int AS n FROM es_events WHERE type = 'FacilityRegistered' AND data->>'labelId' = $1",
      [label.labelId],
    );
    expect(events.rows[0].n).toBe(max);
    // another label registers as ever
    expect((await register(other, 0)).status).toBe(201);
  }, 180_000);
});

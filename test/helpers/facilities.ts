import { expect } from 'vitest';
import { askedAgainOverShare, type client } from './app.ts';
import { textDesign } from './orders.ts';

type Call = ReturnType<typeof client>;

/** Every day of the week: a facility that works them all has no day off to skip. */
export const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** The calendar date in a time zone, `plusDays` on (YYYY-MM-DD). */
export const today = (timezone: string, plusDays = 0) => {
  const d = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
  return new Date(Date.parse(`${d}T00:00:00Z`) + plusDays * 86_400_000).toISOString().slice(0, 10);
};

/** A facility registered with the admin key: its id and its own fulfillment key. */
export async function registerFacility(
  call: Call,
  adminKey: string,
  body: Record<string, unknown>,
) {
  const r = await call('POST', '/api/facilities', { key: adminKey, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  expect(r.body.fulfillmentApiKey).toMatch(/^ep_fac_/);
  return { id: r.body.facilityId as string, key: r.body.fulfillmentApiKey as string };
}

/** A project of one text, saved by an editor user: its id. */
export async function saveProject(call: Call, token: string, sku: string, name: string) {
  const p = await call('POST', '/editor/projects', {
    headers: { authorization: `Bearer ${token}` },
    body: { name, sku, supplier: 'supplier-a', design: textDesign(`${name} item`) },
  });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  return p.body.id as string;
}

/** Sales of one item each, all sent at once; each must be accepted. */
export async function raceSales(
  call: Call,
  shopKey: string,
  projectId: string,
  orderIds: string[],
  shipTo: Record<string, unknown>,
) {
  const answers = await Promise.all(
    orderIds.map((orderId) =>
      askedAgainOverShare(() =>
        call('POST', '/webhook/notifyorder', {
          key: shopKey,
          body: { orderId, items: [{ itemId: 'x', projectId, quantity: 1 }], shipTo },
        }),
      ),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(orderIds.map(() => 200));
}

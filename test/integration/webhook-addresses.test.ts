import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { newIntegration, newLabel, refused } from '../helpers/fixtures.ts';
import { OUTSIDE_LOOK_FORMS, SPECIAL } from '../helpers/special-addresses.ts';

/**
 * With WEBHOOK_ALLOW_PRIVATE=off (the default beside a real database), a shop cannot
 * point its webhook at any special-purpose address, in any form: 400 and nothing stored.
 */
describe('webhook addresses with private addresses off', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let adminKey: string;
  let integrationId: string;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'off', WEBHOOK_ALLOW_HTTP: 'off' });
    call = client(t.url);
    const label = await newLabel(call, t, 'Addresses');
    adminKey = label.adminApiKey;
    integrationId = (await newIntegration(call, t, adminKey, false)).id;
  }, 120_000);
  afterAll(async () => t?.stop());

  it('refuses every special-purpose address and the forms of the outside look', async () => {
    const urls = [
      ...OUTSIDE_LOOK_FORMS,
      ...SPECIAL.map((a) => `https://${a.includes(':') ? `[${a}]` : a}/hooks`),
    ];
    expect(urls.length).toBeGreaterThan(60);
    for (const url of urls) {
      const problem = await refused(
        t,
        call,
        400,
        'PUT',
        `/api/shop-integration/${integrationId}/webhook`,
        {
          key: adminKey,
          body: { url },
        },
      );
      expect(problem.code, url).toBe('invalid_webhook_url');
      expect(problem.detail, url).toMatch(/private|loopback/);
    }
  }, 120_000);
});

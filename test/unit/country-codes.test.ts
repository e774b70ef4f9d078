import { describe, expect, it } from 'vitest';
import { checkShipTo, countryCode } from '../../src/app/addresses.ts';

describe('country codes as sent', () => {
  it('are two ASCII letters of ISO 3166-1, either case, and nothing else', () => {
    expect(countryCode('PL')).toBe('PL');
    expect(countryCode(' de ')).toBe('DE');
    // upper-casing beyond ASCII would make these codes: 'ß' is 'SS', 'ſe' is 'SE'
    for (const sent of ['ß', 'ſe', 'ﬀ', 'Ｄe', 'XX', 'POL', 'P', 'P\u0000', ''])
      expect(countryCode(sent), JSON.stringify(sent)).toBeUndefined();
  });

  it('are quoted in an error by an excerpt, never whole', () => {
    const huge = 'Z'.repeat(900_000);
    let message = '';
    try {
      checkShipTo({
        name: 'A',
        line1: 'Street 1',
        city: 'Town',
        postalCode: '00-001',
        country: huge,
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^Z{40}\.\.\. \(900000 characters\) is not an ISO 3166-1 alpha-2/);
    expect(message.length).toBeLessThan(200);
  });
});

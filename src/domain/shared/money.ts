import { z } from 'zod';

/** Money is a decimal string, never a float. */
export const moneySchema = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,4})?$/, 'a decimal string such as "12.50"');
export const currencySchema = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as "EUR"');

import { z } from 'zod';
import { skuSchema } from '../product/configuration.ts';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

/** Money is a decimal string, never a float. */
export const moneySchema = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,4})?$/, 'a decimal string such as "12.50"');
export const currencySchema = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as "EUR"');

export const priceSchema = z
  .object({
    sku: skuSchema,
    supplier: z.string(),
    minQuantity: z.number().int().min(1).max(10_000_000),
    unitPrice: moneySchema,
    setupPrice: moneySchema.optional(),
  })
  .strict();
export type Price = z.infer<typeof priceSchema>;

export const PricesImported = defineEvent(
  'PricesImported',
  1,
  z.object({
    importId: z.uuid(),
    labelId: z.uuid(),
    currency: currencySchema,
    prices: z.array(priceSchema),
    importedAt: z.iso.datetime(),
  }),
);

export type PriceListEvent = EventOf<typeof PricesImported>;
export const priceListEvents = new EventRegistry<PriceListEvent>([PricesImported]);
export const priceListStream = (labelId: string) => `PriceList-${labelId}`;

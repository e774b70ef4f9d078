import { z } from 'zod';
import { skuSchema } from '../product/configuration.ts';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';
import { currencySchema, moneySchema } from '../shared/money.ts';

export { currencySchema, moneySchema };

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

import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';
import { configurationSchema, skuSchema } from './configuration.ts';

const identity = { supplier: z.string(), sku: skuSchema };

export const ProductConfigurationImported = defineEvent(
  'ProductConfigurationImported',
  1,
  z.object({ ...identity, configuration: configurationSchema, importId: z.uuid() }),
);

/** The print partner asked for a rename without publishing it yet: offerings keep the SKU. */
export const ProductSkuRenameStaged = defineEvent(
  'ProductSkuRenameStaged',
  1,
  z.object({ ...identity, newSku: skuSchema }),
);

/** On the old SKU's stream: the SKU now lives under newSku. */
export const ProductSkuRenamed = defineEvent(
  'ProductSkuRenamed',
  1,
  z.object({ ...identity, newSku: skuSchema }),
);

/** On the new SKU's stream: the configuration arrived from oldSku. */
export const ProductConfigurationRenamedFrom = defineEvent(
  'ProductConfigurationRenamedFrom',
  1,
  z.object({ ...identity, oldSku: skuSchema, configuration: configurationSchema }),
);

export type ProductEvent =
  | EventOf<typeof ProductConfigurationImported>
  | EventOf<typeof ProductSkuRenameStaged>
  | EventOf<typeof ProductSkuRenamed>
  | EventOf<typeof ProductConfigurationRenamedFrom>;

export const productEvents = new EventRegistry<ProductEvent>([
  ProductConfigurationImported,
  ProductSkuRenameStaged,
  ProductSkuRenamed,
  ProductConfigurationRenamedFrom,
]);

/** SKUs are unique per supplier regardless of case. */
export const productStream = (supplier: string, sku: string) =>
  `Product-${supplier}-${sku.toLowerCase()}`;

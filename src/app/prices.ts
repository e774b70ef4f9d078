import { randomUUID } from 'node:crypto';
import { unknownConfigurations } from '#projections/offerings';
import { priceRowsAfter } from '#projections/prices';
import { priceListAggregate } from '../domain/price-list/decider.ts';
import { type Price, priceListStream } from '../domain/price-list/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { handleCommand } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { addingTo } from './label-collections.ts';

/** Imports a label's prices; every SKU must be a configuration on the platform. */
export async function importPrices(
  ctx: AppContext,
  labelId: string,
  input: { currency: string; prices: Price[] },
  metadata: EventMetadata,
): Promise<{ importId: string; imported: number }> {
  const unknown = await unknownConfigurations(ctx.pool, input.prices);
  if (unknown.length > 0) {
    const names = unknown.map((p) => `${p.supplier}/${p.sku}`);
    throw new DomainError(
      'invalid',
      `unknown SKUs: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ` and ${names.length - 20} more` : ''}`,
      'unknown_sku',
    );
  }
  const importId = randomUUID();
  await addingTo(
    ctx.maximums,
    labelId,
    'priceRows',
    () => priceRowsAfter(ctx.pool, labelId, input.currency, input.prices),
    async () => {
      const { appended } = await handleCommand(
        ctx.store,
        priceListAggregate,
        priceListStream(labelId),
        {
          type: 'ImportPrices',
          importId,
          labelId,
          ...input,
          at: new Date(),
        },
        metadata,
      );
      // the next import counts this one's rows
      await ctx.readModels.seen('prices', appended?.position);
    },
  );
  return { importId, imported: input.prices.length };
}

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { priceListDecider } from '../domain/price-list/decider.ts';
import { type Price, priceListEvents, priceListStream } from '../domain/price-list/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata, EventStore, Position } from '../eventstore/port.ts';
import { handleCommand } from './command-handler.ts';

/** Imports a label's prices; every SKU must be a configuration on the platform. */
export async function importPrices(
  store: EventStore,
  pool: pg.Pool,
  labelId: string,
  input: { currency: string; prices: Price[] },
  metadata: EventMetadata,
): Promise<{ importId: string; imported: number; position: Position }> {
  const pairs = [...new Set(input.prices.map((p) => `${p.supplier}\u0000${p.sku.toLowerCase()}`))];
  const known = await pool.query<{ supplier: string; sku_lower: string }>(
    `SELECT supplier, sku_lower FROM rm_offerings
     WHERE (supplier, sku_lower) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [pairs.map((p) => p.split('\u0000')[0]), pairs.map((p) => p.split('\u0000')[1])],
  );
  const found = new Set(known.rows.map((r) => `${r.supplier}\u0000${r.sku_lower}`));
  const unknown = input.prices.filter(
    (p) => !found.has(`${p.supplier}\u0000${p.sku.toLowerCase()}`),
  );
  if (unknown.length > 0) {
    const names = [...new Set(unknown.map((p) => `${p.supplier}/${p.sku}`))];
    throw new DomainError(
      'invalid',
      `unknown SKUs: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ` and ${names.length - 20} more` : ''}`,
      'unknown_sku',
    );
  }
  const importId = randomUUID();
  const { appended } = await handleCommand(
    store,
    priceListEvents,
    priceListDecider,
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
  return { importId, imported: input.prices.length, position: appended!.position };
}

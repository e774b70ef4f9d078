import type pg from 'pg';
import { type Price, priceListEvents } from '../src/domain/price-list/events.ts';
import type { Projection } from './projection.ts';

export const pricesProjection: Projection = {
  name: 'prices',
  tables: ['rm_prices'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_prices (
      label_id     uuid NOT NULL,
      supplier     text NOT NULL,
      sku_lower    text COLLATE "C" NOT NULL,
      currency     text NOT NULL,
      min_quantity integer NOT NULL,
      unit_price   numeric NOT NULL,
      setup_price  numeric,
      PRIMARY KEY (label_id, supplier, sku_lower, currency, min_quantity)
    );`,
  handles: new Set(priceListEvents.types),
  async apply(tx, stored) {
    for (const s of stored) {
      const { labelId, currency, prices } = priceListEvents.deserialize(s).data;
      await tx.query(
        `INSERT INTO rm_prices (label_id, supplier, sku_lower, currency, min_quantity, unit_price, setup_price)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::numeric[], $7::numeric[])
         ON CONFLICT (label_id, supplier, sku_lower, currency, min_quantity)
         DO UPDATE SET unit_price = EXCLUDED.unit_price, setup_price = EXCLUDED.setup_price`,
        [
          labelId,
          prices.map((p) => p.supplier),
          prices.map((p) => p.sku.toLowerCase()),
          prices.map(() => currency),
          prices.map((p) => p.minQuantity),
          prices.map((p) => p.unitPrice),
          prices.map((p) => p.setupPrice ?? null),
        ],
      );
    }
  },
};

export interface PriceView {
  minQuantity: number;
  unitPrice: string;
  setupPrice?: string;
  currency: string;
}

/**
 * The label's price rows now, and how many of `prices` (in `currency`) are new rather
 * than replacing one: what an import would leave the label holding.
 */
export async function priceRowsAfter(
  db: Pick<pg.Pool, 'query'>,
  labelId: string,
  currency: string,
  prices: Pick<Price, 'supplier' | 'sku' | 'minQuantity'>[],
): Promise<{ held: number; adding: number }> {
  const r = await db.query<{ held: number; adding: number }>(
    `SELECT (SELECT count(*)::int FROM rm_prices WHERE label_id = $1) AS held,
            (SELECT count(*)::int FROM unnest($2::text[], $3::text[], $4::int[]) AS n(supplier, sku_lower, min_quantity)
              WHERE NOT EXISTS (SELECT 1 FROM rm_prices p WHERE p.label_id = $1 AND p.supplier = n.supplier
                AND p.sku_lower = n.sku_lower AND p.currency = $5 AND p.min_quantity = n.min_quantity)) AS adding`,
    [
      labelId,
      prices.map((p) => p.supplier),
      prices.map((p) => p.sku.toLowerCase()),
      prices.map((p) => p.minQuantity),
      currency,
    ],
  );
  return r.rows[0]!;
}

import type pg from 'pg';
import { type TemplateRow, templatesFor } from '#projections/mockups';
import { findOffering, type OfferingRow } from '#projections/offerings';
import type { ChangeFeed } from '../db/change-feed.ts';
import { ReadModelCache } from '../db/read-model-cache.ts';

/**
 * Read-model queries that every order repeats (its product's configuration, the
 * label's mockup templates for it), answered from memory until their read model changes.
 */
export interface CachedReads {
  offering(supplier: string, sku: string): Promise<OfferingRow | undefined>;
  templates(
    labelId: string,
    product: { sku: string; baseSKU: string; productColor: string },
  ): Promise<TemplateRow[]>;
}

export function cachedReads(pool: pg.Pool, feed: ChangeFeed): CachedReads {
  const offerings = new ReadModelCache<OfferingRow | undefined>(feed, ['offerings']);
  const templates = new ReadModelCache<TemplateRow[]>(feed, ['mockups'], 1_000);
  return {
    offering: (supplier, sku) =>
      offerings.get(JSON.stringify([supplier, sku.toLowerCase()]), () =>
        findOffering(pool, supplier, sku),
      ),
    templates: (labelId, product) =>
      templates.get(
        JSON.stringify([labelId, product.sku.toLowerCase(), product.baseSKU, product.productColor]),
        () => templatesFor(pool, labelId, product),
      ),
  };
}

/** The same queries, every one to the database (scripts, tests). */
export const uncachedReads = (pool: pg.Pool): CachedReads => ({
  offering: (supplier, sku) => findOffering(pool, supplier, sku),
  templates: (labelId, product) => templatesFor(pool, labelId, product),
});

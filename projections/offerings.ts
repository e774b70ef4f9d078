import type pg from 'pg';
import type { Configuration } from '../src/domain/product/configuration.ts';
import { type ProductEvent, productEvents } from '../src/domain/product/events.ts';
import type { PriceView } from './prices.ts';
import type { Projection } from './projection.ts';

/** A row of rm_offerings: one per supplier and SKU (case-insensitive). */
export interface OfferingRow {
  supplier: string;
  sku: string;
  sku_lower: string;
  config: Configuration;
  renamed_to: string | null;
  staged_rename: string | null;
}

/** What one event does to a row, pure. */
export function evolveOffering(
  row: OfferingRow | undefined,
  event: ProductEvent,
): OfferingRow | undefined {
  const { supplier, sku } = event.data;
  switch (event.type) {
    case 'ProductConfigurationImported':
    case 'ProductConfigurationRenamedFrom':
      return {
        supplier,
        sku,
        sku_lower: sku.toLowerCase(),
        config: event.data.configuration,
        renamed_to: null,
        staged_rename: null,
      };
    case 'ProductSkuRenameStaged':
      return row && { ...row, staged_rename: event.data.newSku };
    case 'ProductSkuRenamed':
      return row && { ...row, renamed_to: event.data.newSku, staged_rename: null };
  }
}

const UPSERT = `
INSERT INTO rm_offerings (supplier, sku_lower, sku, config, visible, renamed_to, staged_rename)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::boolean[], $6::text[], $7::text[])
ON CONFLICT (supplier, sku_lower) DO UPDATE SET
  sku = EXCLUDED.sku, config = EXCLUDED.config, visible = EXCLUDED.visible,
  renamed_to = EXCLUDED.renamed_to, staged_rename = EXCLUDED.staged_rename`;

export const offeringsProjection: Projection = {
  name: 'offerings',
  tables: ['rm_offerings'],
  // visible = published and not renamed away: what search and smartlink show.
  // SKUs sort and compare bytewise (COLLATE "C") so prefix ranges use the index.
  schema: `
    CREATE TABLE IF NOT EXISTS rm_offerings (
      supplier      text NOT NULL,
      sku_lower     text COLLATE "C" NOT NULL,
      sku           text COLLATE "C" NOT NULL,
      config        jsonb NOT NULL,
      visible       boolean NOT NULL,
      renamed_to    text,
      staged_rename text,
      PRIMARY KEY (supplier, sku_lower)
    );
    CREATE INDEX IF NOT EXISTS rm_offerings_smartlink ON rm_offerings (supplier, sku) WHERE visible;
    CREATE INDEX IF NOT EXISTS rm_offerings_prefix ON rm_offerings (supplier, sku_lower) WHERE visible;
    DO $$ BEGIN
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE INDEX IF NOT EXISTS rm_offerings_substring ON rm_offerings
        USING gin (sku_lower gin_trgm_ops) WHERE visible;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'pg_trgm unavailable: substring SKU search scans';
    END $$;`,
  handles: new Set(productEvents.types),
  async apply(tx, stored) {
    const events = stored.map((e) => productEvents.deserialize(e));
    const key = (supplier: string, sku: string) => `${supplier}\u0000${sku.toLowerCase()}`;
    const keys = [...new Set(events.map((e) => key(e.data.supplier, e.data.sku)))];
    const existing = await tx.query<OfferingRow>(
      `SELECT supplier, sku, sku_lower, config, renamed_to, staged_rename FROM rm_offerings
       WHERE (supplier, sku_lower) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [keys.map((k) => k.split('\u0000')[0]), keys.map((k) => k.split('\u0000')[1])],
    );
    const rows = new Map(existing.rows.map((r) => [key(r.supplier, r.sku), r]));
    for (const e of events) {
      const k = key(e.data.supplier, e.data.sku);
      const next = evolveOffering(rows.get(k), e);
      if (next) rows.set(k, next);
    }
    const touched = keys.map((k) => rows.get(k)).filter((r): r is OfferingRow => r !== undefined);
    if (touched.length === 0) return;
    await tx.query(UPSERT, [
      touched.map((r) => r.supplier),
      touched.map((r) => r.sku_lower),
      touched.map((r) => r.sku),
      touched.map((r) => JSON.stringify(r.config)),
      touched.map((r) => r.config.published && r.renamed_to === null),
      touched.map((r) => r.renamed_to),
      touched.map((r) => r.staged_rename),
    ]);
  },
};

// ---- queries ----

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const COLUMNS = 'supplier, sku, sku_lower, config, renamed_to, staged_rename';

/** Exact, then prefix, then substring matches, case-insensitive, at most `max`. */
export async function searchOfferings(
  pool: pg.Pool,
  supplier: string,
  partialSku: string,
  max = 50,
): Promise<OfferingRow[]> {
  const q = partialSku.toLowerCase();
  const like = escapeLike(q);
  // three index-backed queries instead of one ranked scan over every match
  const exact = await pool.query<OfferingRow>(
    `SELECT ${COLUMNS} FROM rm_offerings WHERE supplier = $1 AND sku_lower = $2 AND visible`,
    [supplier, q],
  );
  const out = [...exact.rows];
  if (out.length < max) {
    const prefix = await pool.query<OfferingRow>(
      `SELECT ${COLUMNS} FROM rm_offerings
       WHERE supplier = $1 AND visible AND sku_lower LIKE $2 ESCAPE '\\' AND sku_lower <> $3
       ORDER BY sku_lower LIMIT $4`,
      [supplier, `${like}%`, q, max - out.length],
    );
    out.push(...prefix.rows);
  }
  if (out.length < max) {
    const sub = await pool.query<OfferingRow>(
      `SELECT ${COLUMNS} FROM rm_offerings
       WHERE supplier = $1 AND visible AND sku_lower LIKE $2 ESCAPE '\\' AND sku_lower NOT LIKE $3 ESCAPE '\\'
       ORDER BY sku_lower LIMIT $4`,
      [supplier, `%${like}%`, `${like}%`, max - out.length],
    );
    out.push(...sub.rows);
  }
  return out;
}

/** A complete SKU finds published configurations and renamed ones (which say renamedTo). */
const BY_COMPLETE_SKU = 'supplier = $1 AND sku_lower = $2 AND (visible OR renamed_to IS NOT NULL)';

/** One configuration by its complete SKU: published ones, and renamed ones (with renamedTo). */
export async function findOffering(
  pool: pg.Pool,
  supplier: string,
  sku: string,
): Promise<OfferingRow | undefined> {
  const r = await pool.query<OfferingRow>({
    name: 'offering-by-sku',
    text: `SELECT ${COLUMNS} FROM rm_offerings
           WHERE ${BY_COMPLETE_SKU}`,
    values: [supplier, sku.toLowerCase()],
  });
  return r.rows[0];
}

/**
 * A configuration by its complete SKU with one label's prices for it, by currency and
 * quantity, in one round trip (the detail endpoint's uncached path).
 */
export async function findOfferingWithPrices(
  pool: pg.Pool,
  labelId: string,
  supplier: string,
  sku: string,
): Promise<{ row: OfferingRow; prices: PriceView[] } | undefined> {
  const r = await pool.query<OfferingRow & { prices: PriceView[] }>({
    name: 'offering-with-prices',
    text: `SELECT ${COLUMNS}, COALESCE((
             SELECT json_agg(json_strip_nulls(json_build_object(
               'minQuantity', p.min_quantity, 'unitPrice', p.unit_price::text,
               'setupPrice', p.setup_price::text, 'currency', p.currency))
               ORDER BY p.currency, p.min_quantity)
             FROM rm_prices p
             WHERE p.label_id = $3 AND p.supplier = o.supplier AND p.sku_lower = o.sku_lower
           ), '[]') AS prices
           FROM rm_offerings o
           WHERE ${BY_COMPLETE_SKU}`,
    values: [supplier, sku.toLowerCase(), labelId],
  });
  const found = r.rows[0];
  if (!found) return undefined;
  const { prices, ...row } = found;
  return { row, prices };
}

export const SMARTLINK_CAP = 1000;

/** A page of a supplier's configurations by SKU, never past record SMARTLINK_CAP. */
export async function smartlinkPage(
  pool: pg.Pool,
  supplier: string,
  limit: number,
  offset: number,
): Promise<{ rows: OfferingRow[]; reachable: number }> {
  // one round trip: the page and, beside each row, how many records are reachable
  const take = Math.max(0, Math.min(limit, SMARTLINK_CAP - offset));
  const r = await pool.query<OfferingRow & { reachable: number }>({
    name: 'smartlink-page',
    text: `SELECT ${COLUMNS}, (SELECT count(*)::int FROM (SELECT 1 FROM rm_offerings WHERE supplier = $1 AND visible
             ORDER BY sku LIMIT ${SMARTLINK_CAP}) capped) AS reachable
           FROM rm_offerings WHERE supplier = $1 AND visible ORDER BY sku LIMIT $2 OFFSET $3`,
    values: [supplier, take, offset],
  });
  if (r.rows.length > 0) return { rows: r.rows, reachable: r.rows[0]!.reachable };
  const count = await pool.query<{ n: number }>({
    name: 'smartlink-count',
    text: `SELECT count(*)::int AS n FROM (SELECT 1 FROM rm_offerings WHERE supplier = $1 AND visible
           ORDER BY sku LIMIT ${SMARTLINK_CAP}) capped`,
    values: [supplier],
  });
  return { rows: [], reachable: count.rows[0]!.n };
}

/** Of these supplier/SKU pairs, those with no configuration (any state), each once. */
export async function unknownConfigurations(
  pool: pg.Pool,
  wanted: { supplier: string; sku: string }[],
): Promise<{ supplier: string; sku: string }[]> {
  const key = (supplier: string, skuLower: string) => `${supplier}\u0000${skuLower}`;
  const pairs = [...new Map(wanted.map((w) => [key(w.supplier, w.sku.toLowerCase()), w])).values()];
  const known = await pool.query<{ supplier: string; sku_lower: string }>(
    `SELECT supplier, sku_lower FROM rm_offerings
     WHERE (supplier, sku_lower) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [pairs.map((p) => p.supplier), pairs.map((p) => p.sku.toLowerCase())],
  );
  const found = new Set(known.rows.map((r) => key(r.supplier, r.sku_lower)));
  return pairs.filter((p) => !found.has(key(p.supplier, p.sku.toLowerCase())));
}

/** Of these SKUs of a supplier, those already on the platform, by SKU. */
export async function existingSkus(
  pool: pg.Pool,
  supplier: string,
  skus: string[],
): Promise<string[]> {
  const r = await pool.query<{ sku: string }>(
    'SELECT sku FROM rm_offerings WHERE supplier = $1 AND sku_lower = ANY($2::text[]) ORDER BY sku',
    [supplier, skus.map((s) => s.toLowerCase())],
  );
  return r.rows.map((x) => x.sku);
}

/**
 * The configurations (any supplier, published or not) that a mockup template's match
 * names: one SKU, or a base SKU in one colour or any; at most 500.
 */
export async function configurationsMatching(
  pool: pg.Pool,
  match: { sku: string } | { baseSKU: string; productColor?: string | undefined },
): Promise<{ sku: string; printAreas: string[] }[]> {
  const r =
    'sku' in match
      ? await pool.query<OfferingRow>(
          'SELECT sku, config FROM rm_offerings WHERE sku_lower = $1 ORDER BY supplier LIMIT 500',
          [match.sku.toLowerCase()],
        )
      : await pool.query<OfferingRow>(
          `SELECT sku, config FROM rm_offerings
           WHERE config->>'baseSKU' = $1 AND ($2::text IS NULL OR config->>'productColor' = $2)
           ORDER BY sku LIMIT 500`,
          [match.baseSKU, match.productColor ?? null],
        );
  return r.rows.map((row) => ({
    sku: row.sku,
    printAreas: row.config.printAreas.map((a) => a.code),
  }));
}

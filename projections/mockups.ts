import type pg from 'pg';
import {
  mockupTemplateEvents,
  type TemplateContent,
} from '../src/domain/mockup-template/events.ts';
import { orderEvents } from '../src/domain/order/events.ts';
import type { Projection } from './projection.ts';

/**
 * Mockup templates as they are now (per label; matched to products by SKU or by base
 * SKU and colour), and the mockups recorded for order items.
 */
export const mockupsProjection: Projection = {
  name: 'mockups',
  tables: ['rm_mockup_templates', 'rm_order_mockups'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_mockup_templates (
      label_id        uuid NOT NULL,
      template_id     text COLLATE "C" NOT NULL,
      revision        integer NOT NULL,
      match_sku_lower text COLLATE "C",
      match_base_sku  text COLLATE "C",
      match_color     text COLLATE "C",
      content         jsonb NOT NULL,
      set_at          timestamptz NOT NULL,
      PRIMARY KEY (label_id, template_id)
    );
    CREATE TABLE IF NOT EXISTS rm_order_mockups (
      label_id          uuid NOT NULL,
      order_item_id     uuid NOT NULL,
      template_id       text COLLATE "C" NOT NULL,
      template_revision integer NOT NULL,
      print_file_sha256 text NOT NULL,
      storage_key       text NOT NULL,
      sha256            text NOT NULL,
      bytes             bigint NOT NULL,
      format            text NOT NULL,
      width             integer NOT NULL,
      height            integer NOT NULL,
      rendered_at       timestamptz NOT NULL,
      PRIMARY KEY (order_item_id, sha256)
    );`,
  handles: new Set([...mockupTemplateEvents.types, 'MockupRendered']),
  async apply(tx, events) {
    for (const stored of events) {
      if (mockupTemplateEvents.has(stored.type)) {
        const e = mockupTemplateEvents.deserialize(stored);
        if (e.type === 'MockupTemplateDeleted') {
          await tx.query(
            'DELETE FROM rm_mockup_templates WHERE label_id = $1 AND template_id = $2',
            [e.data.labelId, e.data.templateId],
          );
          continue;
        }
        const { labelId, templateId, revision, setAt, match, photo, areas } = e.data;
        const content: TemplateContent = { match, photo, areas };
        await tx.query(
          `INSERT INTO rm_mockup_templates
             (label_id, template_id, revision, match_sku_lower, match_base_sku, match_color, content, set_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (label_id, template_id) DO UPDATE SET
             revision = EXCLUDED.revision, match_sku_lower = EXCLUDED.match_sku_lower,
             match_base_sku = EXCLUDED.match_base_sku, match_color = EXCLUDED.match_color,
             content = EXCLUDED.content, set_at = EXCLUDED.set_at`,
          [
            labelId,
            templateId,
            revision,
            'sku' in match ? match.sku.toLowerCase() : null,
            'baseSKU' in match ? match.baseSKU : null,
            'baseSKU' in match ? (match.productColor ?? null) : null,
            JSON.stringify(content),
            setAt,
          ],
        );
        continue;
      }
      const e = orderEvents.deserialize(stored);
      if (e.type !== 'MockupRendered') continue;
      const d = e.data;
      await tx.query(
        `INSERT INTO rm_order_mockups (label_id, order_item_id, template_id, template_revision,
           print_file_sha256, storage_key, sha256, bytes, format, width, height, rendered_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
        [
          d.labelId,
          d.orderItemId,
          d.templateId,
          d.templateRevision,
          d.printFileSha256,
          d.storageKey,
          d.sha256,
          d.bytes,
          d.format,
          d.width,
          d.height,
          d.renderedAt,
        ],
      );
    }
  },
};

// ---- queries ----

export interface TemplateRow {
  template_id: string;
  revision: number;
  content: TemplateContent;
  set_at: Date;
}

const TEMPLATE_COLUMNS = 'template_id, revision, content, set_at';

export async function findTemplate(
  pool: pg.Pool,
  labelId: string,
  templateId: string,
): Promise<TemplateRow | undefined> {
  const r = await pool.query<TemplateRow>(
    `SELECT ${TEMPLATE_COLUMNS} FROM rm_mockup_templates WHERE label_id = $1 AND template_id = $2`,
    [labelId, templateId],
  );
  return r.rows[0];
}

export async function listTemplates(pool: pg.Pool, labelId: string): Promise<TemplateRow[]> {
  const r = await pool.query<TemplateRow>(
    `SELECT ${TEMPLATE_COLUMNS} FROM rm_mockup_templates WHERE label_id = $1 ORDER BY template_id`,
    [labelId],
  );
  return r.rows;
}

/** The label's templates for a product: its SKU's, its base SKU's (in its colour or any). */
export async function templatesFor(
  pool: pg.Pool,
  labelId: string,
  product: { sku: string; baseSKU: string; productColor: string },
): Promise<TemplateRow[]> {
  const r = await pool.query<TemplateRow>(
    `SELECT ${TEMPLATE_COLUMNS} FROM rm_mockup_templates
     WHERE label_id = $1 AND (match_sku_lower = $2
       OR ($3 <> '' AND match_base_sku = $3 AND (match_color IS NULL OR match_color = $4)))
     ORDER BY template_id`,
    [labelId, product.sku.toLowerCase(), product.baseSKU, product.productColor],
  );
  return r.rows;
}

export interface OrderMockupRow {
  order_item_id: string;
  template_id: string;
  template_revision: number;
  print_file_sha256: string;
  storage_key: string;
  sha256: string;
  bytes: string;
  format: 'png' | 'jpeg';
  width: number;
  height: number;
  rendered_at: Date;
}

const MOCKUP_COLUMNS = `order_item_id, template_id, template_revision, print_file_sha256, storage_key,
  sha256, bytes, format, width, height, rendered_at`;

/** An order item's mockups, newest first; another label's item has none. */
export async function orderItemMockups(
  pool: pg.Pool,
  labelId: string,
  orderItemIds: string[],
): Promise<OrderMockupRow[]> {
  const r = await pool.query<OrderMockupRow>(
    `SELECT ${MOCKUP_COLUMNS} FROM rm_order_mockups
     WHERE label_id = $1 AND order_item_id = ANY($2::uuid[])
     ORDER BY rendered_at DESC, template_id, sha256`,
    [labelId, orderItemIds],
  );
  return r.rows;
}

export async function findOrderItemMockup(
  pool: pg.Pool,
  labelId: string,
  orderItemId: string,
  sha256: string,
): Promise<OrderMockupRow | undefined> {
  const r = await pool.query<OrderMockupRow>(
    `SELECT ${MOCKUP_COLUMNS} FROM rm_order_mockups
     WHERE label_id = $1 AND order_item_id = $2 AND sha256 = $3`,
    [labelId, orderItemId, sha256],
  );
  return r.rows[0];
}

/** How many mockup templates a label has besides the one named (a replacement is not one more). */
export async function templateCountBesides(
  pool: Pick<pg.Pool, 'query'>,
  labelId: string,
  templateId: string,
): Promise<number> {
  const r = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM rm_mockup_templates WHERE label_id = $1 AND template_id <> $2',
    [labelId, templateId],
  );
  return r.rows[0]?.n ?? 0;
}

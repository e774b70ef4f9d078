import type pg from 'pg';
import {
  type Permission,
  type ShopIntegrationEvent,
  shopIntegrationEvents,
} from '../src/domain/shop-integration/events.ts';
import type { Projection } from './projection.ts';

/** A row of rm_shop_integrations, timestamps as text. */
export interface ShopIntegrationRow {
  integration_id: string;
  label_id: string;
  name: string;
  shop_system: string;
  shop_url: string;
  notification_url: string | null;
  permissions: Permission[];
  api_key_prefix: string;
  created_at: string;
  updated_at: string;
}

/** What one event does to a row: the projection's logic, pure. */
export function evolveRow(
  row: ShopIntegrationRow | undefined,
  event: ShopIntegrationEvent,
): ShopIntegrationRow | undefined {
  if (event.type === 'ShopIntegrationCreated') {
    const d = event.data;
    return (
      row ?? {
        integration_id: d.integrationId,
        label_id: d.labelId,
        name: d.name,
        shop_system: d.shopSystem,
        shop_url: d.shopUrl,
        notification_url: d.notificationUrl ?? null,
        permissions: [],
        api_key_prefix: d.apiKey.prefix,
        created_at: d.createdAt,
        updated_at: d.createdAt,
      }
    );
  }
  if (!row) return row;
  switch (event.type) {
    case 'ShopIntegrationUpdated': {
      const c = event.data.changes;
      return {
        ...row,
        name: c.name ?? row.name,
        shop_system: c.shopSystem ?? row.shop_system,
        shop_url: c.shopUrl ?? row.shop_url,
        notification_url:
          c.notificationUrl !== undefined ? c.notificationUrl : row.notification_url,
        updated_at: event.data.updatedAt,
      };
    }
    case 'ShopIntegrationApiKeyRotated':
      return { ...row, api_key_prefix: event.data.apiKey.prefix, updated_at: event.data.rotatedAt };
    case 'ShopIntegrationPermissionsChanged':
      return { ...row, permissions: event.data.permissions, updated_at: event.data.changedAt };
  }
}

const SELECT_ROW = `SELECT integration_id, label_id, name, shop_system, shop_url,
  notification_url, permissions, api_key_prefix, created_at::text, updated_at::text
  FROM rm_shop_integrations`;

const COLUMNS = [
  ['integration_id', 'uuid'],
  ['label_id', 'uuid'],
  ['name', 'text'],
  ['shop_system', 'text'],
  ['shop_url', 'text'],
  ['notification_url', 'text'],
  ['permissions', 'text'], // text[][] cannot be unnested per row; sent as a JSON array
  ['api_key_prefix', 'text'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
] as const;

// Batch: load the rows the page touches (one query), fold the events over them in
// memory, write every touched row back (one upsert).
const UPSERT = `
INSERT INTO rm_shop_integrations (${COLUMNS.map(([c]) => c).join(', ')})
SELECT integration_id, label_id, name, shop_system, shop_url, notification_url,
       ARRAY(SELECT jsonb_array_elements_text(permissions::jsonb)), api_key_prefix, created_at, updated_at
FROM unnest(${COLUMNS.map(([, t], i) => `$${i + 1}::${t}[]`).join(', ')})
  AS r(${COLUMNS.map(([c]) => c).join(', ')})
ON CONFLICT (integration_id) DO UPDATE SET
  ${COLUMNS.slice(1)
    .map(([c]) => `${c} = EXCLUDED.${c}`)
    .join(', ')}`;

export const shopIntegrationsProjection: Projection = {
  name: 'shop-integrations',
  tables: ['rm_shop_integrations'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_shop_integrations (
      integration_id   uuid PRIMARY KEY,
      label_id         uuid NOT NULL,
      name             text NOT NULL,
      shop_system      text NOT NULL,
      shop_url         text NOT NULL,
      notification_url text,
      permissions      text[] NOT NULL DEFAULT '{}',
      api_key_prefix   text NOT NULL,
      created_at       timestamptz NOT NULL,
      updated_at       timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS rm_shop_integrations_label
      ON rm_shop_integrations (label_id, created_at, integration_id);`,
  handles: new Set(shopIntegrationEvents.types),
  async apply(tx, stored) {
    const events = stored.map((e) => shopIntegrationEvents.deserialize(e));
    const ids = [...new Set(events.map((e) => e.data.integrationId))];
    const existing = await tx.query<ShopIntegrationRow>(
      `${SELECT_ROW} WHERE integration_id = ANY($1::uuid[])`,
      [ids],
    );
    const rows = new Map(existing.rows.map((r) => [r.integration_id, r]));
    for (const e of events) {
      const next = evolveRow(rows.get(e.data.integrationId), e);
      if (next) rows.set(e.data.integrationId, next);
    }
    const touched = ids
      .map((id) => rows.get(id))
      .filter((r): r is ShopIntegrationRow => r !== undefined);
    if (touched.length === 0) return;
    await tx.query(
      UPSERT,
      COLUMNS.map(([c]) =>
        touched.map((r) => (c === 'permissions' ? JSON.stringify(r.permissions) : r[c])),
      ),
    );
  },
};

// ---- queries ----

export async function findShopIntegration(
  pool: pg.Pool,
  labelId: string,
  id: string,
): Promise<ShopIntegrationRow | undefined> {
  const r = await pool.query<ShopIntegrationRow>(
    `${SELECT_ROW} WHERE integration_id = $1 AND label_id = $2`,
    [id, labelId],
  );
  return r.rows[0];
}

export async function listShopIntegrations(
  pool: pg.Pool,
  labelId: string,
): Promise<ShopIntegrationRow[]> {
  const r = await pool.query<ShopIntegrationRow>(
    `${SELECT_ROW} WHERE label_id = $1 ORDER BY created_at, integration_id`,
    [labelId],
  );
  return r.rows;
}

/** The labels that have a shop integration (each label's shops get its daily tree head). */
export async function labelsWithShops(pool: Pick<pg.Pool, 'query'>): Promise<string[]> {
  const r = await pool.query<{ label_id: string }>(
    'SELECT DISTINCT label_id FROM rm_shop_integrations ORDER BY label_id',
  );
  return r.rows.map((x) => x.label_id);
}

/** How many shop integrations a label has. */
export async function shopIntegrationCount(
  pool: Pick<pg.Pool, 'query'>,
  labelId: string,
): Promise<number> {
  const r = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM rm_shop_integrations WHERE label_id = $1',
    [labelId],
  );
  return r.rows[0]?.n ?? 0;
}

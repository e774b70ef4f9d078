import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { SELECT_ROW, type ShopIntegrationRow } from '../../projections/shop-integrations.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { issueKey } from '../domain/shared/keys.ts';
import {
  type ShopIntegrationCommand,
  type ShopIntegrationFields,
  shopIntegrationDecider,
} from '../domain/shop-integration/decider.ts';
import {
  type Permission,
  shopIntegrationEvents,
  shopIntegrationStream,
} from '../domain/shop-integration/events.ts';
import type { AppendResult, EventMetadata, EventStore } from '../eventstore/port.ts';
import { handleCommand } from './command-handler.ts';

export interface ShopIntegrationView {
  id: string;
  name: string;
  shopSystem: string;
  shopUrl: string;
  notificationUrl?: string;
  permissions: string[];
  apiKeyPrefix: string;
  createdAt: string;
  updatedAt: string;
}

const run = (
  store: EventStore,
  id: string,
  command: ShopIntegrationCommand,
  metadata: EventMetadata,
) =>
  handleCommand(
    store,
    shopIntegrationEvents,
    shopIntegrationDecider,
    shopIntegrationStream(id),
    command,
    metadata,
  );

export async function createShopIntegration(
  store: EventStore,
  labelId: string,
  fields: ShopIntegrationFields,
  metadata: EventMetadata,
): Promise<{ id: string; apiKey: string; appended: AppendResult }> {
  const id = randomUUID();
  const key = issueKey('int', id);
  const { appended } = await run(
    store,
    id,
    {
      type: 'CreateShopIntegration',
      integrationId: id,
      labelId,
      fields,
      apiKey: key.stored,
      at: new Date(),
    },
    metadata,
  );
  return { id, apiKey: key.plaintext, appended: appended! };
}

export async function updateShopIntegration(
  store: EventStore,
  labelId: string,
  id: string,
  changes: Extract<ShopIntegrationCommand, { type: 'UpdateShopIntegration' }>['changes'],
  metadata: EventMetadata,
): Promise<AppendResult | undefined> {
  const r = await run(
    store,
    id,
    { type: 'UpdateShopIntegration', labelId, changes, at: new Date() },
    metadata,
  );
  return r.appended;
}

export async function rotateShopIntegrationKey(
  store: EventStore,
  labelId: string,
  id: string,
  metadata: EventMetadata,
): Promise<{ apiKey: string; appended: AppendResult }> {
  const key = issueKey('int', id);
  const r = await run(
    store,
    id,
    { type: 'RotateShopIntegrationKey', labelId, apiKey: key.stored, at: new Date() },
    metadata,
  );
  return { apiKey: key.plaintext, appended: r.appended! };
}

export async function changeShopIntegrationPermissions(
  store: EventStore,
  id: string,
  permissions: Permission[],
  metadata: EventMetadata,
): Promise<{ permissions: Permission[]; appended: AppendResult | undefined; labelId: string }> {
  const r = await run(
    store,
    id,
    { type: 'ChangeShopIntegrationPermissions', permissions, at: new Date() },
    metadata,
  );
  if (!r.state.exists)
    throw new DomainError('not_found', 'shop integration not found', 'shop_integration_not_found');
  return { permissions: r.state.permissions, appended: r.appended, labelId: r.state.labelId };
}

const toView = (r: ShopIntegrationRow): ShopIntegrationView => ({
  id: r.integration_id,
  name: r.name,
  shopSystem: r.shop_system,
  shopUrl: r.shop_url,
  ...(r.notification_url !== null ? { notificationUrl: r.notification_url } : {}),
  permissions: r.permissions,
  apiKeyPrefix: r.api_key_prefix,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

export async function getShopIntegration(
  pool: pg.Pool,
  labelId: string,
  id: string,
): Promise<ShopIntegrationView | undefined> {
  const r = await pool.query<ShopIntegrationRow>(
    `${SELECT_ROW} WHERE integration_id = $1 AND label_id = $2`,
    [id, labelId],
  );
  return r.rows[0] ? toView(r.rows[0]) : undefined;
}

export async function listShopIntegrations(
  pool: pg.Pool,
  labelId: string,
): Promise<ShopIntegrationView[]> {
  const r = await pool.query<ShopIntegrationRow>(
    `${SELECT_ROW} WHERE label_id = $1 ORDER BY created_at, integration_id`,
    [labelId],
  );
  return r.rows.map(toView);
}

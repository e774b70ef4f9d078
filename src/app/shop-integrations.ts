import { randomUUID } from 'node:crypto';
import {
  findShopIntegration,
  listShopIntegrations as listRows,
  type ShopIntegrationRow,
  shopIntegrationCount,
} from '#projections/shop-integrations';
import { DomainError } from '../domain/shared/decider.ts';
import { issueKey } from '../domain/shared/keys.ts';
import {
  type ShopIntegrationCommand,
  type ShopIntegrationFields,
  shopIntegrationAggregate,
} from '../domain/shop-integration/decider.ts';
import { type Permission, shopIntegrationStream } from '../domain/shop-integration/events.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { handleCommand } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { addingTo } from './label-collections.ts';

const PROJECTION = 'shop-integrations';
const notFound = () =>
  new DomainError('not_found', 'shop integration not found', 'shop_integration_not_found');

/** A shop integration of the label, as the read model has it; another label's is not found. */
export async function getShopIntegration(
  ctx: AppContext,
  labelId: string,
  id: string,
): Promise<ShopIntegrationRow> {
  const row = await findShopIntegration(ctx.pool, labelId, id);
  if (!row) throw notFound();
  return row;
}

export const listShopIntegrations = (ctx: AppContext, labelId: string) =>
  listRows(ctx.pool, labelId);

/** Creates a shop integration with its key, shown this once. */
export async function createShopIntegration(
  ctx: AppContext,
  labelId: string,
  fields: ShopIntegrationFields,
  metadata: EventMetadata,
): Promise<{ row: ShopIntegrationRow; apiKey: string }> {
  const id = randomUUID();
  const key = issueKey('int', id);
  await addingTo(
    ctx.maximums,
    labelId,
    'shopIntegrations',
    () => shopIntegrationCount(ctx.pool, labelId),
    async () => {
      const { appended } = await handleCommand(
        ctx.store,
        shopIntegrationAggregate,
        shopIntegrationStream(id),
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
      // the next one counts this one
      await ctx.readModels.seen(PROJECTION, appended?.position);
    },
  );
  return { row: await getShopIntegration(ctx, labelId, id), apiKey: key.plaintext };
}

export async function updateShopIntegration(
  ctx: AppContext,
  labelId: string,
  id: string,
  changes: Extract<ShopIntegrationCommand, { type: 'UpdateShopIntegration' }>['changes'],
  metadata: EventMetadata,
): Promise<ShopIntegrationRow> {
  const r = await handleCommand(
    ctx.store,
    shopIntegrationAggregate,
    shopIntegrationStream(id),
    { type: 'UpdateShopIntegration', labelId, changes, at: new Date() },
    metadata,
  );
  await ctx.readModels.seen(PROJECTION, r.appended?.position);
  return getShopIntegration(ctx, labelId, id);
}

/** A new key for the integration; the old one is refused from now on. */
export async function rotateShopIntegrationKey(
  ctx: AppContext,
  labelId: string,
  id: string,
  metadata: EventMetadata,
): Promise<{ id: string; apiKey: string }> {
  const key = issueKey('int', id);
  const r = await handleCommand(
    ctx.store,
    shopIntegrationAggregate,
    shopIntegrationStream(id),
    { type: 'RotateShopIntegrationKey', labelId, apiKey: key.stored, at: new Date() },
    metadata,
  );
  await ctx.readModels.seen(PROJECTION, r.appended?.position);
  return { id, apiKey: key.plaintext };
}

/** The operator grants or takes permissions (`offering`). */
export async function changeShopIntegrationPermissions(
  ctx: AppContext,
  id: string,
  permissions: Permission[],
  metadata: EventMetadata,
): Promise<{ id: string; permissions: Permission[] }> {
  const r = await handleCommand(
    ctx.store,
    shopIntegrationAggregate,
    shopIntegrationStream(id),
    { type: 'ChangeShopIntegrationPermissions', permissions, at: new Date() },
    metadata,
  );
  if (!r.state.exists) throw notFound();
  await ctx.readModels.seen(PROJECTION, r.appended?.position);
  return { id, permissions: r.state.permissions };
}

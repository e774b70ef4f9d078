import { randomUUID } from 'node:crypto';
import { existingSkus } from '#projections/offerings';
import { printshopKeyAggregate } from '../domain/printshop-key/decider.ts';
import { printshopKeyStream } from '../domain/printshop-key/events.ts';
import { configurationSchema, slugify } from '../domain/product/configuration.ts';
import { productAggregate } from '../domain/product/decider.ts';
import { productStream } from '../domain/product/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { issueKey } from '../domain/shared/keys.ts';
import type { EventMetadata, EventStore, Position } from '../eventstore/port.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { requestImport } from './imports.ts';

/** A key for the print partner's SKU maintenance, shown this once. */
export async function issuePrintshopKey(
  { store }: AppContext,
  name: string,
  metadata: EventMetadata,
): Promise<{ keyId: string; apiKey: string }> {
  const keyId = randomUUID();
  const key = issueKey('psk', keyId);
  await handleCommand(
    store,
    printshopKeyAggregate,
    printshopKeyStream(keyId),
    {
      type: 'IssuePrintshopKey',
      keyId,
      name,
      key: key.stored,
      at: new Date(),
    },
    metadata,
  );
  return { keyId, apiKey: key.plaintext };
}

/**
 * Changes the SKU of a printshop product. Staged (publish false): recorded on the old
 * SKU, offerings unchanged. Published: the configuration moves to the new SKU's stream
 * first (which fails with 409 when that SKU exists), then the old SKU is marked renamed.
 * A crash between the two appends is healed by sending the same change again.
 */
export async function changePrintshopSku(
  ctx: AppContext,
  supplier: string,
  change: { oldSku: string; newSku: string; publish: boolean },
  metadata: EventMetadata,
): Promise<{ oldSku: string; newSku: string; published: boolean }> {
  const { published, positions } = await rename(ctx.store, supplier, change, metadata);
  for (const p of positions) await ctx.readModels.seen('offerings', p);
  return { oldSku: change.oldSku, newSku: change.newSku, published };
}

async function rename(
  store: EventStore,
  supplier: string,
  change: { oldSku: string; newSku: string; publish: boolean },
  metadata: EventMetadata,
): Promise<{ published: boolean; positions: Position[] }> {
  const { oldSku, newSku, publish } = change;
  if (oldSku.toLowerCase() === newSku.toLowerCase()) {
    throw new DomainError('invalid', 'newSku must differ from oldSku', 'same_sku');
  }
  const old = await loadState(store, productAggregate, productStream(supplier, oldSku));
  if (old.status !== 'live') {
    throw new DomainError('not_found', `SKU ${oldSku} is not on the platform`, 'sku_not_found');
  }
  const target = await loadState(store, productAggregate, productStream(supplier, newSku));
  if (target.status === 'live' && target.renamedFrom !== old.sku) {
    throw new DomainError('conflict', `SKU ${newSku} is already on the platform`, 'sku_exists');
  }
  const positions: Position[] = [];
  if (!publish) {
    const r = await handleCommand(
      store,
      productAggregate,
      productStream(supplier, oldSku),
      {
        type: 'StageRename',
        sku: oldSku,
        newSku,
      },
      metadata,
    );
    if (r.appended) positions.push(r.appended.position);
    return { published: false, positions };
  }
  const moved = await handleCommand(
    store,
    productAggregate,
    productStream(supplier, newSku),
    {
      type: 'ReceiveRename',
      supplier,
      sku: newSku,
      oldSku: old.sku,
      configuration: old.configuration,
    },
    metadata,
  );
  if (moved.appended) positions.push(moved.appended.position);
  const renamed = await handleCommand(
    store,
    productAggregate,
    productStream(supplier, oldSku),
    {
      type: 'PublishRename',
      sku: oldSku,
      newSku,
    },
    metadata,
  );
  if (renamed.appended) positions.push(renamed.appended.position);
  return { published: true, positions };
}

/**
 * New SKU groups of the print partner: each SKU a configuration under the printshop
 * supplier, its group's slug as skuGroup. SKUs already on the platform are refused (400)
 * before anything is recorded; the import then runs from the log.
 */
export async function addSkuGroups(
  ctx: AppContext,
  supplier: string,
  groups: { groupName: string; skus: string[] }[],
  metadata: EventMetadata,
): Promise<{ importId: string; groups: number; skus: number }> {
  const items = groups.flatMap((g) =>
    g.skus.map((sku) => ({
      sku,
      configuration: configurationSchema.parse({
        baseSKU: sku,
        skuGroup: slugify(g.groupName),
        name: g.groupName,
      }),
    })),
  );
  const existing = await existingSkus(
    ctx.pool,
    supplier,
    items.map((i) => i.sku),
  );
  if (existing.length > 0) {
    throw new DomainError(
      'invalid',
      `already on the platform: ${existing.slice(0, 20).join(', ')}${existing.length > 20 ? ` and ${existing.length - 20} more` : ''}`,
      'sku_exists',
    );
  }
  const { importId, position } = await requestImport(
    ctx,
    { kind: 'printshop-skus', supplier, items, groups: groups.length },
    metadata,
  );
  // its progress can be read as soon as the request is answered
  await ctx.readModels.seen('imports', position);
  return { importId, groups: groups.length, skus: items.length };
}

import { randomUUID } from 'node:crypto';
import { printshopKeyDecider } from '../domain/printshop-key/decider.ts';
import { printshopKeyEvents, printshopKeyStream } from '../domain/printshop-key/events.ts';
import { productDecider } from '../domain/product/decider.ts';
import { productEvents, productStream } from '../domain/product/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { issueKey } from '../domain/shared/keys.ts';
import type { EventMetadata, EventStore, Position } from '../eventstore/port.ts';
import { handleCommand, loadState } from './command-handler.ts';

export async function issuePrintshopKey(
  store: EventStore,
  name: string,
  metadata: EventMetadata,
): Promise<{ keyId: string; apiKey: string }> {
  const keyId = randomUUID();
  const key = issueKey('psk', keyId);
  await handleCommand(
    store,
    printshopKeyEvents,
    printshopKeyDecider,
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
  store: EventStore,
  supplier: string,
  change: { oldSku: string; newSku: string; publish: boolean },
  metadata: EventMetadata,
): Promise<{ published: boolean; positions: Position[] }> {
  const { oldSku, newSku, publish } = change;
  if (oldSku.toLowerCase() === newSku.toLowerCase()) {
    throw new DomainError('invalid', 'newSku must differ from oldSku', 'same_sku');
  }
  const old = await loadState(
    store,
    productEvents,
    productDecider,
    productStream(supplier, oldSku),
  );
  if (old.status !== 'live') {
    throw new DomainError('not_found', `SKU ${oldSku} is not on the platform`, 'sku_not_found');
  }
  const target = await loadState(
    store,
    productEvents,
    productDecider,
    productStream(supplier, newSku),
  );
  if (target.status === 'live' && target.renamedFrom !== old.sku) {
    throw new DomainError('conflict', `SKU ${newSku} is already on the platform`, 'sku_exists');
  }
  const positions: Position[] = [];
  if (!publish) {
    const r = await handleCommand(
      store,
      productEvents,
      productDecider,
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
    productEvents,
    productDecider,
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
    productEvents,
    productDecider,
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

import {
  decrypt,
  destroyOwnerKey,
  encrypt,
  ensureOwnerKey,
  ownerKey,
} from '../db/encryption-keys.ts';
import { orderAggregate } from '../domain/order/decider.ts';
import { orderStream } from '../domain/order/events.ts';
import type { ShipTo } from '../domain/order/ship-to.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { Encrypted } from '../domain/shared/encrypted.ts';
import { deterministicId } from '../domain/shared/ids.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { checkShipTo } from './addresses.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';

/*
 * The recipient of an order: read (for the label's admin and fulfillment keys), corrected
 * until the order ships, and erased with the rest of the customer's data.
 */

/** The owner id of an order's personal-data key (in encryption_keys), from its stream. */
export const personalDataKeyOf = (stream: string) => deterministicId('order-personal-data', stream);

/** The recipient as sealed in the order's events; null when none was given or it was erased. */
export async function openShipTo(
  ctx: Pick<AppContext, 'pool'>,
  sealed: Encrypted | null,
  keyOwner: string | null,
): Promise<ShipTo | null> {
  if (!sealed || !keyOwner) return null;
  const key = await ownerKey(ctx.pool, keyOwner);
  // an erased customer's key is gone: the address is ciphertext no one can read
  return key ? (decrypt(key, sealed) as ShipTo) : null;
}

const orderNotFound = () => new DomainError('not_found', 'order not found', 'order_not_found');

async function loadOrder(ctx: AppContext, labelId: string, orderId: string) {
  const stream = orderStream(labelId, orderId);
  const order = await loadState(ctx.store, orderAggregate, stream);
  if (!order.exists || order.labelId !== labelId) throw orderNotFound();
  return { stream, order };
}

/**
 * Corrects the recipient's address until anything of the order ships: checked as at
 * receipt, recorded with the one it replaces (both encrypted).
 */
export async function correctShipTo(
  ctx: AppContext,
  labelId: string,
  orderId: string,
  input: ShipTo,
  metadata: EventMetadata,
): Promise<ShipTo> {
  const shipTo = checkShipTo(input);
  const { stream, order } = await loadOrder(ctx, labelId, orderId);
  const key = await ensureOwnerKey(ctx.pool, order.personalDataKey ?? personalDataKeyOf(stream));
  const r = await handleCommand(
    ctx.store,
    orderAggregate,
    stream,
    {
      type: 'CorrectShipTo',
      shipTo: encrypt(key, shipTo),
      country: shipTo.country,
      at: new Date(),
    },
    { ...metadata, labelId },
  );
  await ctx.readModels.seen('orders', r.appended?.position);
  return shipTo;
}

/**
 * Erases the customer's personal data of one order: the event first (so the history
 * says when and by whom), then the order's key, which every copy of the name, email,
 * gift message and address was sealed with. Asked again, the key is destroyed again.
 */
export async function eraseCustomer(
  ctx: AppContext,
  labelId: string,
  orderId: string,
  metadata: EventMetadata,
): Promise<{ orderId: string; erasedAt: string }> {
  const { stream } = await loadOrder(ctx, labelId, orderId);
  const r = await handleCommand(
    ctx.store,
    orderAggregate,
    stream,
    { type: 'EraseCustomer', at: new Date() },
    { ...metadata, labelId },
  );
  if (!r.state.exists || r.state.personalDataKey === null) throw new Error('order without a key');
  await destroyOwnerKey(ctx.pool, r.state.personalDataKey);
  await ctx.readModels.seen('orders', r.appended?.position);
  const erased = r.events.find((e) => e.type === 'CustomerErased');
  return {
    orderId,
    erasedAt: erased && 'erasedAt' in erased.data ? erased.data.erasedAt : new Date().toISOString(),
  };
}

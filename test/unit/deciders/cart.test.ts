import { describe, it } from 'vitest';
import { cartItemDecider } from '../../../src/domain/cart/decider.ts';
import type { CartItemEvent } from '../../../src/domain/cart/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const ids = {
  cartItemId: '11111111-1111-4111-8111-111111111111',
  labelId: '22222222-2222-4222-8222-222222222222',
  userRef: '33333333-3333-4333-8333-333333333333',
  projectId: '44444444-4444-4444-8444-444444444444',
};
const at = new Date('2026-01-02T03:04:05.000Z');
const spec = specFor(cartItemDecider);
const added: CartItemEvent = {
  type: 'CartItemAdded',
  data: { ...ids, quantity: 5, addedAt: at.toISOString() },
};
const add = { type: 'AddCartItem' as const, ...ids, quantity: 5, at };
const remove = { type: 'RemoveCartItem' as const, labelId: ids.labelId, at };

describe('cart item decider', () => {
  it('adds a saved project to the cart', () => spec([]).when(add).thenEvents([added]));
  it('does not add the same cart item twice', () =>
    spec([added]).when(add).thenFails('cart_item_exists'));
  it("removes an item for the item's own label", () =>
    spec([added])
      .when(remove)
      .thenEvents([
        {
          type: 'CartItemRemoved',
          data: { cartItemId: ids.cartItemId, removedAt: at.toISOString() },
        },
      ]));
  it("does not let another label's admin remove it", () =>
    spec([added])
      .when({ ...remove, labelId: '99999999-9999-4999-8999-999999999999' })
      .thenFails('cart_item_not_found'));
  it('does not remove an item twice, nor one that never was', () => {
    const removed: CartItemEvent = {
      type: 'CartItemRemoved',
      data: { cartItemId: ids.cartItemId, removedAt: at.toISOString() },
    };
    spec([added, removed]).when(remove).thenFails('cart_item_not_found');
    spec([]).when(remove).thenFails('cart_item_not_found');
  });
});

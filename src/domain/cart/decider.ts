import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import { type CartItemEvent, cartItemEvents, cartItemStream } from './events.ts';

export type CartItemCommand =
  | {
      type: 'AddCartItem';
      cartItemId: string;
      labelId: string;
      userRef: string;
      projectId: string;
      quantity: number;
      at: Date;
    }
  | { type: 'RemoveCartItem'; labelId: string; at: Date };

export type CartItemState =
  | { status: 'none' }
  | {
      status: 'active' | 'removed';
      cartItemId: string;
      labelId: string;
      userRef: string;
      projectId: string;
      quantity: number;
    };

export const cartItemDecider: Decider<CartItemCommand, CartItemEvent, CartItemState> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'AddCartItem': {
        if (state.status !== 'none')
          throw new DomainError('conflict', 'cart item exists', 'cart_item_exists');
        const { cartItemId, labelId, userRef, projectId, quantity, at } = command;
        return [
          {
            type: 'CartItemAdded',
            data: { cartItemId, labelId, userRef, projectId, quantity, addedAt: at.toISOString() },
          },
        ];
      }
      case 'RemoveCartItem':
        if (state.status !== 'active' || state.labelId !== command.labelId) {
          throw new DomainError('not_found', 'shopping cart item not found', 'cart_item_not_found');
        }
        return [
          {
            type: 'CartItemRemoved',
            data: { cartItemId: state.cartItemId, removedAt: command.at.toISOString() },
          },
        ];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CartItemAdded': {
        const { cartItemId, labelId, userRef, projectId, quantity } = event.data;
        return { status: 'active', cartItemId, labelId, userRef, projectId, quantity };
      }
      case 'CartItemRemoved':
        return state.status === 'none' ? state : { ...state, status: 'removed' };
    }
  },
};

export const cartItemAggregate: Aggregate<
  CartItemCommand,
  CartItemEvent,
  CartItemState,
  Parameters<typeof cartItemStream>
> = {
  events: cartItemEvents,
  decider: cartItemDecider,
  stream: cartItemStream,
};

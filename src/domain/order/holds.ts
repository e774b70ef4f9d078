import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  type Command,
  cancelled,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  type OrderState,
  orderAt,
  type Recorded,
} from './state.ts';

/*
 * Holds: an order stopped on the shop floor until released.
 */

export function holdOrder(
  command: Command<'HoldOrder'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  orderAt(state, command.facilityId);
  if (state.holdsSeen.has(command.holdId)) return [];
  if (state.status === 'cancelled') throw cancelled();
  return [
    {
      type: 'OrderHeld',
      data: { holdId: command.holdId, reason: command.reason, heldAt: at },
    },
  ];
}

export function releaseHold(
  command: Command<'ReleaseHold'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists || !state.holdsSeen.has(command.holdId))
    throw new DomainError('not_found', 'hold not found', 'hold_not_found');
  orderAt(state, command.facilityId);
  if (!state.holds.has(command.holdId)) return []; // released already
  return [{ type: 'OrderReleased', data: { holdId: command.holdId, releasedAt: at } }];
}

export function onOrderHeld(state: Recorded, event: Event<'OrderHeld'>): OrderState {
  const holds = new Map(state.holds);
  holds.set(event.data.holdId, { reason: event.data.reason, since: event.data.heldAt });
  return { ...state, holds, holdsSeen: new Set([...state.holdsSeen, event.data.holdId]) };
}

export function onOrderReleased(state: Recorded, event: Event<'OrderReleased'>): OrderState {
  const hold = state.holds.get(event.data.holdId);
  if (!hold) return state;
  const holds = new Map(state.holds);
  holds.delete(event.data.holdId);
  const heldMs =
    state.heldMs + Math.max(0, Date.parse(event.data.releasedAt) - Date.parse(hold.since));
  return { ...state, holds, heldMs };
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  HoldOrder: holdOrder,
  ReleaseHold: releaseHold,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  OrderHeld: onOrderHeld,
  OrderReleased: onOrderReleased,
} satisfies EvolveHandlers;

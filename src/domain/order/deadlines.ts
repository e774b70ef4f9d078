import type { OrderEvent } from './events.ts';
import {
  type Command,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  effectiveShipBy,
  hasShipped,
  type OrderState,
  type Recorded,
} from './state.ts';

/*
 * Deadlines: an order not shipped by its ship-by time (hold time not counted).
 */

export function markLate(
  command: Command<'MarkLate'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists || state.late || state.status === 'cancelled') return [];
  const due = effectiveShipBy(state, command.at);
  if (!due || due.getTime() >= command.at.getTime() || state.holds.size > 0) return [];
  const unshipped = [...state.items.values()].some((i) => !hasShipped(i));
  if (!unshipped) return [];
  return [{ type: 'OrderWentLate', data: { shipBy: due.toISOString(), noticedAt: at } }];
}

export function onOrderWentLate(state: Recorded, _event: Event<'OrderWentLate'>): OrderState {
  return { ...state, late: true };
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  MarkLate: markLate,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  OrderWentLate: onOrderWentLate,
} satisfies EvolveHandlers;

import type { OrderEvent } from './events.ts';
import {
  type Command,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  itemOf,
  mockupKey,
  type OrderState,
  type Recorded,
} from './state.ts';

/*
 * Mockups: an item's product photo with its print file on it, recorded once.
 */

export function recordMockup(
  command: Command<'RecordMockup'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const { mockup } = command;
  itemOf(state, mockup.orderItemId);
  if (!state.exists || state.mockups.has(mockupKey(mockup))) return [];
  return [{ type: 'MockupRendered', data: { ...mockup, renderedAt: at } }];
}

export function onMockupRendered(state: Recorded, event: Event<'MockupRendered'>): OrderState {
  return {
    ...state,
    mockups: new Map([...state.mockups, [mockupKey(event.data), event.data]]),
  };
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  RecordMockup: recordMockup,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  MockupRendered: onMockupRendered,
} satisfies EvolveHandlers;

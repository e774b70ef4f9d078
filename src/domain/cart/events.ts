import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

export const CartItemAdded = defineEvent(
  'CartItemAdded',
  1,
  z.object({
    cartItemId: z.uuid(),
    labelId: z.uuid(),
    userRef: z.uuid(),
    projectId: z.uuid(),
    quantity: z.number().int().positive(),
    addedAt: z.iso.datetime(),
  }),
);
export const CartItemRemoved = defineEvent(
  'CartItemRemoved',
  1,
  z.object({ cartItemId: z.uuid(), removedAt: z.iso.datetime() }),
);

export type CartItemEvent = EventOf<typeof CartItemAdded> | EventOf<typeof CartItemRemoved>;
export const cartItemEvents = new EventRegistry<CartItemEvent>([CartItemAdded, CartItemRemoved]);
export const cartItemStream = (id: string) => `CartItem-${id}`;

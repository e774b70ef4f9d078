import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  type Command,
  cancelled,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  hasShipped,
  type OrderState,
  type Recorded,
} from './state.ts';

/*
 * The recipient: an address corrected before anything ships, the customer's data erased.
 */

export function correctShipTo(
  command: Command<'CorrectShipTo'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  if (state.status === 'cancelled') throw cancelled();
  if (state.customerErased)
    throw new DomainError(
      'conflict',
      "the customer's data was erased: the order has no recipient any more",
      'customer_erased',
    );
  if (state.personalDataKey === null)
    throw new DomainError(
      'conflict',
      'the order came in before recipients were kept: it has no address to correct',
      'no_recipient',
    );
  const shipped = [...state.items.values()].find(hasShipped);
  if (shipped)
    throw new DomainError(
      'conflict',
      `item ${shipped.item.itemId} has shipped: the address can no longer be corrected`,
      'already_shipped',
    );
  return [
    {
      type: 'ShipToCorrected',
      data: {
        previous: state.shipTo,
        shipTo: command.shipTo,
        country: command.country,
        correctedAt: at,
      },
    },
  ];
}

export function eraseCustomer(
  _command: Command<'EraseCustomer'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  if (state.customerErased) return [];
  if (state.personalDataKey === null)
    throw new DomainError(
      'conflict',
      "the order came in before orders had keys of their own: its customer's data is sealed with the label's key, erased with the label",
      'label_sealed',
    );
  return [{ type: 'CustomerErased', data: { erasedAt: at } }];
}

export function onShipToCorrected(state: Recorded, event: Event<'ShipToCorrected'>): OrderState {
  return { ...state, shipTo: event.data.shipTo, shipToCountry: event.data.country };
}

export function onCustomerErased(state: Recorded, _event: Event<'CustomerErased'>): OrderState {
  return { ...state, customerErased: true };
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  CorrectShipTo: correctShipTo,
  EraseCustomer: eraseCustomer,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  ShipToCorrected: onShipToCorrected,
  CustomerErased: onCustomerErased,
} satisfies EvolveHandlers;

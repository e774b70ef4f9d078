import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  type Command,
  cancelled,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  itemOf,
  type OrderState,
  type Recorded,
  withItem,
} from './state.ts';

/*
 * Routing: where each item is made. The decision itself (which facility, on which day,
 * why) is made from the facilities as they are (src/domain/facility/routing.ts); the
 * order records it, once per item unless its facility is paused or an operator moves it.
 */

export function routeItem(
  command: Command<'RouteItem'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const item = itemOf(state, command.orderItemId);
  if (!state.exists) return [];
  const { mode, decision } = command;
  const onTheFloor = item.stage !== undefined && item.stage !== 'ready';
  if (mode === 'operator') {
    if (state.status === 'cancelled') throw cancelled();
    if (onTheFloor)
      throw new DomainError(
        'conflict',
        `item ${item.item.itemId} is ${item.stage} where it is: it can no longer be moved`,
        'item_in_production',
      );
    if (decision.facilityId === item.facilityId) return [];
  } else {
    if (state.status === 'cancelled' || onTheFloor) return [];
    // routed once; again only off the facility the re-route was asked for (it may have moved)
    if (mode === 'first' && item.facilityId !== undefined) return [];
    if (mode === 'reroute' && item.facilityId !== command.from) return [];
    if (mode === 'reroute' && decision.facilityId === item.facilityId) return [];
  }
  return [
    {
      type: 'ItemRouted',
      data: {
        orderItemId: command.orderItemId,
        ...decision,
        from:
          item.facilityId === undefined
            ? null
            : { facilityId: item.facilityId, day: item.routedDay ?? null },
        routedAt: at,
      },
    },
  ];
}

export function onItemRouted(state: Recorded, event: Event<'ItemRouted'>): OrderState {
  const routed = withItem(state, event.data.orderItemId, (i) => ({
    ...i,
    facilityId: event.data.facilityId,
    routedDay: event.data.day,
  }));
  const shipBy = event.data.shipBy;
  if (!routed.exists || !shipBy) return routed;
  const later = !routed.facilityShipBy || Date.parse(shipBy) > Date.parse(routed.facilityShipBy);
  return later ? { ...routed, facilityShipBy: shipBy } : routed;
}

/** The commands of this part of the order's life, by type. */
export const decide = { RouteItem: routeItem } satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = { ItemRouted: onItemRouted } satisfies EvolveHandlers;

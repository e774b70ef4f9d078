import { itemsToMoveOff, unroutableItems } from '#projections/facilities';
import { loadState } from '../app/command-handler.ts';
import { type RoutingDeps, routeOrderItems, routingInOrder } from '../app/routing.ts';
import { facilityAggregate } from '../domain/facility/decider.ts';
import { facilityEvents } from '../domain/facility/events.ts';
import type { Reactor } from './reactor.ts';

/** The order events after which an item may have become routable. */
const ITEM_READY = ['PrintFileGenerated', 'ProofApproved', 'ApprovalWaived', 'OrderApproved'];

/**
 * Routing, from the log: an item is routed once its print file is ready (and its proof
 * approved where it needs one); a paused facility's items not yet on the press are
 * routed again; a facility registered, changed or resumed takes what waited as
 * unroutable. Idempotent: the order's decider routes an item once per cause, and the
 * event ids derive from the cause.
 */
export function routingReactor(given: RoutingDeps): Reactor {
  const inOrder = routingInOrder(given);
  const deps = { ...given, inOrder };
  return {
    name: 'routing',
    handles: new Set([...ITEM_READY, ...facilityEvents.types]),
    acquired: () => inOrder.acquired(),
    async react(stored) {
      if (ITEM_READY.includes(stored.type)) {
        await routeOrderItems(deps, stored.streamId, 'first', undefined, 'first');
        return;
      }
      // the facilities and what the read models say of the items include this event and
      // all before it (an order's print file after it finds the facility)
      await deps.facilitiesSeen(stored.position);
      await deps.itemsSeen(stored.position);
      const facility = await loadState(deps.store, facilityAggregate, stored.streamId);
      if (!facility.exists) return;
      if (stored.type === 'FacilityPaused') {
        for (const item of await itemsToMoveOff(deps.pool, facility.facilityId))
          await routeOrderItems(
            deps,
            item.stream_id,
            'reroute',
            { orderItemId: item.order_item_id, from: facility.facilityId },
            `paused:${stored.id}`,
          );
        return;
      }
      for (const item of await unroutableItems(deps.pool, facility.labelId))
        await routeOrderItems(
          deps,
          item.stream_id,
          'reroute',
          { orderItemId: item.order_item_id, from: null },
          `facility:${stored.id}`,
        );
    },
  };
}

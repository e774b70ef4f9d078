import { DomainError } from '../shared/decider.ts';
import type { OrderEvent } from './events.ts';
import {
  approvedForProduction,
  awaitingApproval,
  type Command,
  type DecideHandlers,
  type Event,
  type EvolveHandlers,
  hasShipped,
  itemOf,
  type OrderState,
  orderAt,
  producible,
  type Recorded,
  STAGE_RANK,
  stageConflict,
} from './state.ts';

/*
 * Shipments: items shipped, delivered or returned.
 */

export function shipItems(command: Command<'ShipItems'>, state: OrderState): OrderEvent[] {
  if (!state.exists) throw new DomainError('not_found', 'order not found', 'order_not_found');
  const { shipmentId, carrier, trackingNumber, trackingUrl, facilityId } = command;
  orderAt(state, facilityId);
  // a facility ships what it made and has not shipped (this shipment's own, told again,
  // included), unless items are named; the label's key, every item
  const ids =
    command.orderItemIds ??
    [...state.items.values()]
      .filter(
        (i) =>
          facilityId === undefined ||
          (i.facilityId === facilityId && (!hasShipped(i) || i.shipmentId === shipmentId)),
      )
      .map((i) => i.item.orderItemId);
  const shipped = state.shipments.get(shipmentId);
  if (shipped) {
    // the same shipment told again (an Idempotency-Key sent twice): the same answer
    const same =
      shipped.carrier === carrier &&
      shipped.trackingNumber === trackingNumber &&
      shipped.trackingUrl === trackingUrl &&
      shipped.orderItemIds.length === ids.length &&
      ids.every((id) => shipped.orderItemIds.includes(id));
    if (same) return [];
    throw new DomainError(
      'conflict',
      'this Idempotency-Key was used for another shipment',
      'idempotency_key_reused',
    );
  }
  const order = producible(state);
  if (command.shippedAt.getTime() < Date.parse(state.receivedAt))
    throw new DomainError(
      'invalid',
      `shippedAt is before the order was received (${state.receivedAt})`,
      'invalid_shipped_at',
      { field: 'shippedAt' },
    );
  if (ids.length === 0)
    throw new DomainError(
      'conflict',
      'every item of the order here has shipped',
      'already_shipped',
    );
  const from = new Set(ids.map((id) => itemOf(order, id, facilityId).facilityId ?? null));
  if (from.size > 1)
    throw new DomainError(
      'conflict',
      'these items are made at different facilities: each facility ships its own',
      'several_facilities',
    );
  const leavesFrom = [...from][0] ?? undefined;
  for (const id of ids) {
    const item = itemOf(order, id);
    if (hasShipped(item))
      throw new DomainError(
        'conflict',
        `item ${item.item.itemId} was shipped already (shipment ${item.shipmentId})`,
        'already_shipped',
      );
    if (!approvedForProduction(item)) throw awaitingApproval(item);
    if (item.stage === undefined || STAGE_RANK[item.stage] === undefined)
      throw stageConflict(item, 'shipped');
  }
  return [
    {
      type: 'OrderShipped',
      data: {
        shipmentId,
        ...(leavesFrom ? { facilityId: leavesFrom } : {}),
        orderItemIds: ids,
        carrier,
        trackingNumber,
        ...(trackingUrl ? { trackingUrl } : {}),
        shippedAt: command.shippedAt.toISOString(),
      },
    },
  ];
}

export function deliverShipmentOrReturnShipment(
  command: Command<'DeliverShipment' | 'ReturnShipment'>,
  state: OrderState,
  at: string,
): OrderEvent[] {
  const shipment = state.exists ? state.shipments.get(command.shipmentId) : undefined;
  // a facility's key finds its own shipments only
  if (!shipment || (command.facilityId !== undefined && shipment.facilityId !== command.facilityId))
    throw new DomainError('not_found', 'shipment not found', 'shipment_not_found');
  // an item reprinted since is no longer this shipment's
  const stillIn = shipment.orderItemIds.filter(
    (id) => state.exists && state.items.get(id)?.shipmentId === command.shipmentId,
  );
  if (command.type === 'DeliverShipment') {
    if (shipment.delivered) return [];
    if (shipment.returned)
      throw new DomainError('conflict', 'the shipment came back', 'shipment_returned');
    return [
      {
        type: 'ShipmentDelivered',
        data: { shipmentId: command.shipmentId, orderItemIds: stillIn, deliveredAt: at },
      },
    ];
  }
  if (shipment.returned) return [];
  return [
    {
      type: 'ShipmentReturned',
      data: {
        shipmentId: command.shipmentId,
        orderItemIds: stillIn,
        reason: command.reason,
        returnedAt: at,
      },
    },
  ];
}

export function onOrderShipped(state: Recorded, event: Event<'OrderShipped'>): OrderState {
  const d = event.data;
  const items = new Map(state.items);
  for (const id of d.orderItemIds) {
    const i = items.get(id);
    if (i) items.set(id, { ...i, stage: 'shipped', shipmentId: d.shipmentId });
  }
  const shipments = new Map(state.shipments);
  shipments.set(d.shipmentId, {
    orderItemIds: d.orderItemIds,
    carrier: d.carrier,
    trackingNumber: d.trackingNumber,
    trackingUrl: d.trackingUrl,
    shippedAt: d.shippedAt,
    facilityId: d.facilityId,
    delivered: false,
    returned: false,
  });
  return { ...state, items, shipments };
}

export function onShipmentDeliveredOrShipmentReturned(
  state: Recorded,
  event: Event<'ShipmentDelivered' | 'ShipmentReturned'>,
): OrderState {
  const shipment = state.shipments.get(event.data.shipmentId);
  if (!shipment) return state;
  const delivered = event.type === 'ShipmentDelivered';
  const shipments = new Map(state.shipments);
  shipments.set(event.data.shipmentId, {
    ...shipment,
    ...(delivered ? { delivered: true } : { returned: true }),
  });
  const items = new Map(state.items);
  for (const id of event.data.orderItemIds) {
    const i = items.get(id);
    if (i) items.set(id, { ...i, stage: delivered ? 'delivered' : 'returned' });
  }
  return { ...state, items, shipments };
}

/** The commands of this part of the order's life, by type. */
export const decide = {
  ShipItems: shipItems,
  DeliverShipment: deliverShipmentOrReturnShipment,
  ReturnShipment: deliverShipmentOrReturnShipment,
} satisfies DecideHandlers;

/** How this part's events change the order. */
export const evolve = {
  OrderShipped: onOrderShipped,
  ShipmentDelivered: onShipmentDeliveredOrShipmentReturned,
  ShipmentReturned: onShipmentDeliveredOrShipmentReturned,
} satisfies EvolveHandlers;

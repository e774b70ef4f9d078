import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import { a, at, b, iso, made, ship, shipmentId, shipped, spec } from './fixtures.ts';

describe('order decider: shipments', () => {
  it('refuses a shipment dated before the order was received', () => {
    spec(made)
      .when({ ...ship, shippedAt: new Date('0001-01-01T00:00:00Z') })
      .thenFails('invalid_shipped_at');
  });

  it('ships every item when none is named, once per shipment id; an item ships once', () => {
    spec(made).when(ship).thenEvents([shipped]);
    spec([...made, shipped])
      .when(ship)
      .thenEvents([]);
    spec([...made, shipped])
      .when({ ...ship, trackingNumber: 'other' })
      .thenFails('idempotency_key_reused');
    spec([...made, shipped])
      .when({ ...ship, shipmentId: '77777777-7777-4777-8777-777777777777' })
      .thenFails('already_shipped');
  });

  it('delivers and returns a shipment once each', () => {
    const delivered: OrderEvent = {
      type: 'ShipmentDelivered',
      data: { shipmentId, orderItemIds: [a.orderItemId, b.orderItemId], deliveredAt: iso },
    };
    spec([...made, shipped])
      .when({ type: 'DeliverShipment', shipmentId, at })
      .thenEvents([delivered]);
    spec([...made, shipped, delivered])
      .when({ type: 'DeliverShipment', shipmentId, at })
      .thenEvents([]);
    spec(made).when({ type: 'DeliverShipment', shipmentId, at }).thenFails('shipment_not_found');
    spec([...made, shipped])
      .when({ type: 'ReturnShipment', shipmentId, reason: 'refused', at })
      .thenEvents([
        {
          type: 'ShipmentReturned',
          data: {
            shipmentId,
            orderItemIds: [a.orderItemId, b.orderItemId],
            reason: 'refused',
            returnedAt: iso,
          },
        },
      ]);
  });
});

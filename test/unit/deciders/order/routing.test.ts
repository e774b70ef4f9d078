import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import type { Routing } from '../../../../src/domain/order/state.ts';
import { a, at, b, iso, itemPrinted, made, received, ship, spec, stage } from './fixtures.ts';

const kr = '77777777-7777-4777-8777-777777777777';
const be = '88888888-8888-4888-8888-888888888888';
const decision = (facilityId: string | null): Routing => ({
  facilityId,
  day: facilityId ? '2026-01-02' : null,
  shipBy: null,
  reason: {
    rule: facilityId ? 'only_capable' : 'unroutable',
    candidates: [
      {
        facilityId: kr,
        name: 'Kraków',
        verdict: facilityId === kr ? 'chosen' : 'paused',
        detail: facilityId === kr ? 'prints screen' : 'is paused',
      },
    ],
  },
});
const route = (
  orderItemId: string,
  facilityId: string | null,
  mode: 'first' | 'reroute' | 'operator' = 'first',
  from?: string | null,
) => ({
  type: 'RouteItem' as const,
  orderItemId,
  decision: decision(facilityId),
  mode,
  ...(from !== undefined ? { from } : {}),
  at,
});
const routed = (
  orderItemId: string,
  facilityId: string | null,
  from: string | null | undefined = undefined,
): OrderEvent => ({
  type: 'ItemRouted',
  data: {
    orderItemId,
    ...decision(facilityId),
    from: from === undefined ? null : { facilityId: from, day: from ? '2026-01-02' : null },
    routedAt: iso,
  },
});
const withKey: OrderEvent = {
  ...received,
  data: { ...(received.data as object), personalDataKey: '99999999-9999-4999-8999-999999999999' },
} as OrderEvent;
const sealed = { alg: 'A256GCM' as const, iv: 'aXY=', data: 'ZGF0YQ==', tag: 'dGFn' };

describe('order decider: routing', () => {
  it('routes an item once by the rules; again only off the facility a re-route names', () => {
    spec(made)
      .when(route(a.orderItemId, kr))
      .thenEvents([routed(a.orderItemId, kr)]);
    spec([...made, routed(a.orderItemId, kr)])
      .when(route(a.orderItemId, be))
      .thenEvents([]);
    // paused Kraków: its item moves; a re-route asked for off another facility does nothing
    spec([...made, routed(a.orderItemId, kr)])
      .when(route(a.orderItemId, be, 'reroute', kr))
      .thenEvents([routed(a.orderItemId, be, kr)]);
    spec([...made, routed(a.orderItemId, kr)])
      .when(route(a.orderItemId, be, 'reroute', be))
      .thenEvents([]);
    // unroutable, then a facility that can make it
    spec([...made, routed(a.orderItemId, null)])
      .when(route(a.orderItemId, kr, 'reroute', null))
      .thenEvents([routed(a.orderItemId, kr, null)]);
  });

  it('leaves an item on the press where it is; an operator is told so', () => {
    const onPress = [...made, routed(a.orderItemId, kr), itemPrinted(a.orderItemId)];
    spec(onPress)
      .when(route(a.orderItemId, be, 'reroute', kr))
      .thenEvents([]);
    spec(onPress)
      .when(route(a.orderItemId, be, 'operator'))
      .thenFails('item_in_production');
    spec([...made, routed(a.orderItemId, kr)])
      .when(route(a.orderItemId, be, 'operator'))
      .thenEvents([routed(a.orderItemId, be, kr)]);
  });

  it("a facility's key finds its own items and shipments only; split orders ship per facility", () => {
    const split = [...made, routed(a.orderItemId, kr), routed(b.orderItemId, be)];
    spec(split)
      .when({ ...stage(b.orderItemId, 'printed'), facilityId: kr })
      .thenFails('order_item_not_found');
    spec(split)
      .when({ ...stage(a.orderItemId, 'printed'), facilityId: kr })
      .thenEvents([itemPrinted(a.orderItemId)]);
    // the label's key cannot ship both in one parcel
    spec(split).when(ship).thenFails('several_facilities');
    // Kraków ships what it made, and the shipment names it
    spec(split)
      .when({ ...ship, facilityId: kr })
      .thenEvents([
        {
          type: 'OrderShipped',
          data: {
            shipmentId: ship.shipmentId,
            facilityId: kr,
            orderItemIds: [a.orderItemId],
            carrier: ship.carrier,
            trackingNumber: ship.trackingNumber,
            shippedAt: iso,
          },
        },
      ]);
    spec(split)
      .when({ ...ship, facilityId: kr, orderItemIds: [b.orderItemId] })
      .thenFails('order_item_not_found');
    spec(made)
      .when({ type: 'HoldOrder', holdId: kr, reason: 'x', facilityId: be, at })
      .thenFails('order_not_found');
  });
});

describe('order decider: recipients', () => {
  it('corrects the address until anything ships, keeping the old one', () => {
    spec([withKey])
      .when({ type: 'CorrectShipTo', shipTo: sealed, country: 'PL', at })
      .thenEvents([
        {
          type: 'ShipToCorrected',
          data: { previous: null, shipTo: sealed, country: 'PL', correctedAt: iso },
        },
      ]);
    spec(made)
      .when({ type: 'CorrectShipTo', shipTo: sealed, country: 'PL', at })
      .thenFails('no_recipient');
    const shippedA: OrderEvent = {
      type: 'OrderShipped',
      data: {
        shipmentId: ship.shipmentId,
        orderItemIds: [a.orderItemId],
        carrier: 'DHL',
        trackingNumber: '1',
        shippedAt: iso,
      },
    };
    spec([withKey, ...made.slice(1), shippedA])
      .when({ type: 'CorrectShipTo', shipTo: sealed, country: 'PL', at })
      .thenFails('already_shipped');
  });

  it("erases the customer's data once; an order sealed with its label's key is erased with the label", () => {
    const erased: OrderEvent = { type: 'CustomerErased', data: { erasedAt: iso } };
    spec([withKey]).when({ type: 'EraseCustomer', at }).thenEvents([erased]);
    spec([withKey, erased]).when({ type: 'EraseCustomer', at }).thenEvents([]);
    spec([withKey, erased])
      .when({ type: 'CorrectShipTo', shipTo: sealed, country: 'PL', at })
      .thenFails('customer_erased');
    spec([received]).when({ type: 'EraseCustomer', at }).thenFails('label_sealed');
  });
});

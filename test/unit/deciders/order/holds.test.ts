import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import { a, at, held, holdId, itemPrinted, later, made, ship, spec, stage } from './fixtures.ts';

describe('order decider: holds', () => {
  it('holds block scans and shipments until released; the clock is paused meanwhile', () => {
    spec([...made, held])
      .when(stage(a.orderItemId, 'printed'))
      .thenFails('order_on_hold');
    spec([...made, held])
      .when(ship)
      .thenFails('order_on_hold');
    spec([...made, held])
      .when({ type: 'HoldOrder', holdId, reason: 'x', at })
      .thenEvents([]);
    const released: OrderEvent = {
      type: 'OrderReleased',
      data: { holdId, releasedAt: later(120).toISOString() },
    };
    spec([...made, held])
      .when({ type: 'ReleaseHold', holdId, at: later(120) })
      .thenEvents([released]);
    spec([...made, held, released])
      .when({ type: 'ReleaseHold', holdId, at })
      .thenEvents([]);
    spec([...made, held, released])
      .when(stage(a.orderItemId, 'printed'))
      .thenEvents([itemPrinted(a.orderItemId)]);
    spec(made).when({ type: 'ReleaseHold', holdId, at }).thenFails('hold_not_found');
    // two hours on hold move the ship-by time two hours on: not late at +72h30m
    spec([...made, held, released])
      .when({ type: 'MarkLate', at: later(72 * 60 + 30) })
      .thenEvents([]);
  });
});

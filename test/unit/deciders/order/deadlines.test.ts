import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import { later, made, shipped, spec } from './fixtures.ts';

describe('order decider: deadlines', () => {
  it('goes late once, when unshipped past its ship-by time', () => {
    const late: OrderEvent = {
      type: 'OrderWentLate',
      data: { shipBy: '2026-01-05T03:04:05.000Z', noticedAt: later(72 * 60 + 1).toISOString() },
    };
    spec(made)
      .when({ type: 'MarkLate', at: later(72 * 60 - 1) })
      .thenEvents([]);
    spec(made)
      .when({ type: 'MarkLate', at: later(72 * 60 + 1) })
      .thenEvents([late]);
    spec([...made, late])
      .when({ type: 'MarkLate', at: later(72 * 60 + 2) })
      .thenEvents([]);
    spec([...made, shipped])
      .when({ type: 'MarkLate', at: later(72 * 60 + 1) })
      .thenEvents([]);
  });
});

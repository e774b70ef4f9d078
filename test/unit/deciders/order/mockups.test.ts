import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import { a, at, iso, labelId, printed, received, spec } from './fixtures.ts';

describe('order decider: mockups', () => {
  it('records a mockup once per print file, template revision and size; an unknown item is not found', () => {
    const mockup = {
      labelId,
      orderItemId: a.orderItemId,
      templateId: 'mug-front',
      templateRevision: 1,
      templateImages: ['b'.repeat(64)],
      printFileSha256: 'f'.repeat(64),
      storageKey: `${labelId}/${a.orderItemId}/mockup-${'c'.repeat(64)}.png`,
      sha256: 'c'.repeat(64),
      bytes: 5000,
      format: 'png' as const,
      width: 1200,
      height: 900,
    };
    const rendered: OrderEvent = { type: 'MockupRendered', data: { ...mockup, renderedAt: iso } };
    const record = (m: typeof mockup) => ({ type: 'RecordMockup' as const, mockup: m, at });
    spec([received, printed(a.orderItemId, 'f'.repeat(64))])
      .when(record(mockup))
      .thenEvents([rendered]);
    spec([received, rendered]).when(record(mockup)).thenEvents([]);
    // the template changed: a new revision is a new mockup, the old one stays recorded
    const revised = { ...mockup, templateRevision: 2, sha256: 'd'.repeat(64) };
    spec([received, rendered])
      .when(record(revised))
      .thenEvents([{ type: 'MockupRendered', data: { ...revised, renderedAt: iso } }]);
    spec([received])
      .when(record({ ...mockup, orderItemId: '99999999-9999-4999-8999-999999999999' }))
      .thenFails('order_item_not_found');
  });
});

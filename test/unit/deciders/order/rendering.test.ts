import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import { a, at, b, failed, file, iso, printed, received, spec, started } from './fixtures.ts';

describe('order decider: rendering', () => {
  it('records a print file for the current barcode; one for an outdated barcode is moot', () => {
    const record = {
      type: 'RecordPrintFile' as const,
      orderItemId: a.orderItemId,
      forVersion: 0,
      file: { ...file(a.orderItemId, 'aa'), images: [] },
      at,
    };
    spec([received, started])
      .when(record)
      .thenEvents([printed(a.orderItemId, 'aa')]);
    const updated: OrderEvent = {
      type: 'OrderItemBarcodeUpdated',
      data: {
        orderItemId: a.orderItemId,
        barcode: { format: 'ean13', value: '4006381333931' },
        updatedAt: iso,
      },
    };
    spec([received, started, updated]).when(record).thenEvents([]);
  });

  it('records a print file with its preflight; a failed preflight fails the item', () => {
    const rule = (name: string, result: 'pass' | 'failure') => ({
      rule: name,
      severity: 'failure' as const,
      result,
      detail: result === 'pass' ? 'fine' : 'RGB on the page: DeviceRGB',
    });
    const report = (result: 'pass' | 'failure') => ({
      passed: result === 'pass',
      rules: [rule('colour_spaces', result)],
      plates: ['Black'],
      maxInkCoverage: 100,
    });
    const record = (result: 'pass' | 'failure') => ({
      type: 'RecordPrintFile' as const,
      orderItemId: a.orderItemId,
      forVersion: 0,
      file: { ...file(a.orderItemId, 'aa'), images: [] },
      preflight: report(result),
      at,
    });
    const preflighted = (result: 'pass' | 'failure'): OrderEvent => ({
      type: 'PrintFilePreflighted',
      data: { orderItemId: a.orderItemId, sha256: 'aa', ...report(result), checkedAt: iso },
    });
    spec([received, started])
      .when(record('pass'))
      .thenEvents([printed(a.orderItemId, 'aa'), preflighted('pass')]);
    spec([received, started])
      .when(record('failure'))
      .thenEvents([
        printed(a.orderItemId, 'aa'),
        preflighted('failure'),
        {
          type: 'OrderItemFailed',
          data: {
            orderItemId: a.orderItemId,
            reason: 'preflight: colour_spaces (RGB on the page: DeviceRGB)',
            kind: 'preflight',
            failedAt: iso,
          },
        },
      ]);
  });

  it('completes only when every item is done: ready, or failed with the reasons', () => {
    spec([received, started, printed(a.orderItemId, 'aa')])
      .when({ type: 'CompleteOrder', at })
      .thenFails('order_incomplete');
    spec([received, started, printed(a.orderItemId, 'aa'), printed(b.orderItemId, 'bb')])
      .when({ type: 'CompleteOrder', at })
      .thenEvents([{ type: 'OrderReady', data: { readyAt: iso } }]);
    spec([received, started, printed(a.orderItemId, 'aa'), failed(b.orderItemId, 'no image')])
      .when({ type: 'CompleteOrder', at })
      .thenEvents([{ type: 'OrderFailed', data: { reason: 'l2: no image', failedAt: iso } }]);
  });

  it('fails an item once, and knows no item of another order', () => {
    spec([received, failed(a.orderItemId, 'x')])
      .when({ type: 'FailItem', orderItemId: a.orderItemId, reason: 'x', kind: 'layout', at })
      .thenEvents([]);
    spec([received])
      .when({
        type: 'FailItem',
        orderItemId: '99999999-9999-4999-8999-999999999999',
        reason: 'x',
        kind: 'layout',
        at,
      })
      .thenFails('order_item_not_found');
  });

  it('retries the failed items, once: a retry under way is not asked twice', () => {
    const retryId = '66666666-6666-4666-8666-666666666666';
    const orderFailed: OrderEvent = {
      type: 'OrderFailed',
      data: { reason: 'l2: no image', failedAt: iso },
    };
    const history = [
      received,
      started,
      printed(a.orderItemId, 'aa'),
      failed(b.orderItemId, 'no image'),
      orderFailed,
    ];
    const retried: OrderEvent = {
      type: 'OrderRetryRequested',
      data: { retryId, orderItemIds: [b.orderItemId], requestedAt: iso },
    };
    spec(history).when({ type: 'RequestRetry', retryId, at }).thenEvents([retried]);
    spec([...history, retried])
      .when({ type: 'RequestRetry', retryId, at })
      .thenEvents([]);
    // after the retry the order starts rendering again, and renders only the failed item
    spec([...history, retried])
      .when({ type: 'StartRendering', at })
      .thenEvents([started]);
    spec([received, started, printed(a.orderItemId, 'aa'), printed(b.orderItemId, 'bb')])
      .when({ type: 'RequestRetry', retryId, at })
      .thenEvents([]);
    // an item failed while the other still renders: the run is not over
    spec([received, started, failed(b.orderItemId, 'no image')])
      .when({ type: 'RequestRetry', retryId, at })
      .thenFails('order_in_progress');
    spec([
      received,
      started,
      printed(a.orderItemId, 'aa'),
      printed(b.orderItemId, 'bb'),
      { type: 'OrderReady', data: { readyAt: iso } },
    ])
      .when({ type: 'RequestRetry', retryId, at })
      .thenFails('nothing_to_retry');
  });
});

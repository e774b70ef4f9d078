import { describe, it } from 'vitest';
import { orderDecider } from '../../../src/domain/order/decider.ts';
import type { OrderEvent, OrderItem } from '../../../src/domain/order/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const labelId = '22222222-2222-4222-8222-222222222222';
const at = new Date('2026-01-02T03:04:05.000Z');
const iso = at.toISOString();
const item = (orderItemId: string, itemId: string): OrderItem => ({
  orderItemId,
  itemId,
  projectId: '44444444-4444-4444-8444-444444444444',
  quantity: 1,
  sku: 'MUG-1',
  supplier: 'supplier-a',
  printMethod: 'screen',
  printColors: 2,
  printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 80, heightMm: 50 }],
  design: { areas: [{ printArea: 'FRONT', layers: [] }] },
});
const a = item('11111111-1111-4111-8111-111111111111', 'l1');
const b = item('33333333-3333-4333-8333-333333333333', 'l2');
const spec = specFor(orderDecider);

const received: OrderEvent = {
  type: 'OrderReceived',
  data: {
    orderId: 'SHOP-1',
    labelId,
    bodyHash: 'h',
    source: { channel: 'shop' },
    customer: null,
    items: [a, b],
    receivedAt: iso,
  },
};
const started: OrderEvent = { type: 'OrderRenderingStarted', data: { startedAt: iso } };
const file = (orderItemId: string, sha256: string) => ({
  storageKey: `${labelId}/${orderItemId}/${sha256}.pdf`,
  sha256,
  pages: 1,
  bytes: 1000,
  barcode: { format: 'code128' as const, value: orderItemId },
  warnings: [],
});
const printed = (orderItemId: string, sha256: string): OrderEvent => ({
  type: 'PrintFileGenerated',
  data: { orderItemId, ...file(orderItemId, sha256), images: [], generatedAt: iso },
});
const failed = (orderItemId: string, reason: string): OrderEvent => ({
  type: 'OrderItemFailed',
  data: { orderItemId, reason, failedAt: iso },
});

describe('order decider', () => {
  it('receives an order once', () => {
    const receive = {
      type: 'ReceiveOrder' as const,
      orderId: 'SHOP-1',
      labelId,
      bodyHash: 'h',
      source: { channel: 'shop' as const },
      customer: null,
      items: [a, b],
      at,
    };
    spec([]).when(receive).thenEvents([received]);
    spec([received]).when(receive).thenFails('order_exists');
  });

  it('starts rendering once', () => {
    spec([received]).when({ type: 'StartRendering', at }).thenEvents([started]);
    spec([received, started]).when({ type: 'StartRendering', at }).thenEvents([]);
  });

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
      .when({ type: 'FailItem', orderItemId: a.orderItemId, reason: 'x', at })
      .thenEvents([]);
    spec([received])
      .when({
        type: 'FailItem',
        orderItemId: '99999999-9999-4999-8999-999999999999',
        reason: 'x',
        at,
      })
      .thenFails('order_item_not_found');
  });

  it('takes a replay request only when there is a print file to compare', () => {
    const request = {
      type: 'RequestReplay' as const,
      replayId: '55555555-5555-4555-8555-555555555555',
      at,
    };
    spec([received, started]).when(request).thenFails('nothing_to_replay');
    spec([received, started, printed(a.orderItemId, 'aa')])
      .when(request)
      .thenEvents([
        { type: 'OrderReplayRequested', data: { replayId: request.replayId, requestedAt: iso } },
      ]);
    spec([]).when(request).thenFails('order_not_found');
  });

  it('records a replay verdict once, and a mismatch as its own event', () => {
    const replayId = '55555555-5555-4555-8555-555555555555';
    const results = [
      { orderItemId: a.orderItemId, expected: 'aa', actual: 'aa', matches: true },
      { orderItemId: b.orderItemId, expected: 'bb', actual: 'cc', matches: false },
    ];
    const replayed: OrderEvent = {
      type: 'OrderReplayed',
      data: { replayId, results, replayedAt: iso },
    };
    const history = [received, started, printed(a.orderItemId, 'aa'), printed(b.orderItemId, 'bb')];
    spec(history)
      .when({ type: 'RecordReplay', replayId, results, at })
      .thenEvents([
        replayed,
        {
          type: 'PrintFileMismatchDetected',
          data: {
            replayId,
            orderItemId: b.orderItemId,
            expected: 'bb',
            actual: 'cc',
            detectedAt: iso,
          },
        },
      ]);
    spec([...history, replayed])
      .when({ type: 'RecordReplay', replayId, results, at })
      .thenEvents([]);
  });
});

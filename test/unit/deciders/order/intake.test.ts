import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import {
  a,
  at,
  b,
  file,
  iso,
  labelId,
  made,
  print,
  printed,
  received,
  shipped,
  spec,
  started,
} from './fixtures.ts';

describe('order decider: intake', () => {
  it('receives an order once', () => {
    const receive = {
      type: 'ReceiveOrder' as const,
      orderId: 'SHOP-1',
      labelId,
      bodyHash: 'h',
      source: { channel: 'shop' as const },
      customer: null,
      items: [a, b],
      renderWithinMinutes: 30,
      print,
      shipWithinHours: 72,
      giftMessage: null,
      shipTo: null,
      shipToCountry: null,
      personalDataKey: null,
      at,
    };
    spec([]).when(receive).thenEvents([received]);
    spec([received]).when(receive).thenFails('order_exists');
  });

  it('starts rendering once', () => {
    spec([received]).when({ type: 'StartRendering', at }).thenEvents([started]);
    spec([received, started]).when({ type: 'StartRendering', at }).thenEvents([]);
  });

  it('cancels an order once; a cancelled order gets no print file and no retry', () => {
    const cancelled: OrderEvent = {
      type: 'OrderCancelled',
      data: { reason: 'customer', cancelledAt: iso },
    };
    spec([received, started])
      .when({ type: 'CancelOrder', reason: 'customer', at })
      .thenEvents([cancelled]);
    spec([received, started, cancelled]).when({ type: 'CancelOrder', at }).thenEvents([]);
    spec([received, started, cancelled])
      .when({
        type: 'RecordPrintFile',
        orderItemId: a.orderItemId,
        forVersion: 0,
        file: { ...file(a.orderItemId, 'aa'), images: [] },
        at,
      })
      .thenEvents([]);
    spec([received, started, cancelled]).when({ type: 'CompleteOrder', at }).thenEvents([]);
    spec([received, cancelled])
      .when({ type: 'RequestRetry', retryId: '66666666-6666-4666-8666-666666666666', at })
      .thenFails('order_cancelled');
  });

  it('records once that an unfinished order went past its deadline', () => {
    const late = new Date('2026-01-02T04:00:00.000Z');
    const overdue: OrderEvent = {
      type: 'OrderWentOverdue',
      data: { renderDueAt: '2026-01-02T03:34:05.000Z', noticedAt: late.toISOString() },
    };
    spec([received, started]).when({ type: 'MarkOverdue', at }).thenEvents([]); // not due yet
    spec([received, started]).when({ type: 'MarkOverdue', at: late }).thenEvents([overdue]);
    spec([received, started, overdue]).when({ type: 'MarkOverdue', at: late }).thenEvents([]);
    spec([
      received,
      started,
      printed(a.orderItemId, 'aa'),
      printed(b.orderItemId, 'bb'),
      { type: 'OrderReady', data: { readyAt: iso } },
    ])
      .when({ type: 'MarkOverdue', at: late })
      .thenEvents([]);
  });

  it('has nothing to cancel once every item has shipped', () => {
    spec([...made, shipped])
      .when({ type: 'CancelOrder', at })
      .thenFails('order_shipped');
  });
});

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
const print = {
  renderer: 2,
  outputProfile: { sha256: 'a'.repeat(64), description: 'Test CMYK' },
  cropMarks: false,
  maxInkCoverage: 300,
  inkMethods: ['screen'],
};

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
    renderDueAt: '2026-01-02T03:34:05.000Z',
    print,
    shipBy: '2026-01-05T03:04:05.000Z',
    giftMessage: null,
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
  data: { orderItemId, reason, kind: 'image_missing', failedAt: iso },
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
      renderWithinMinutes: 30,
      print,
      shipWithinHours: 72,
      giftMessage: null,
      at,
    };
    spec([]).when(receive).thenEvents([received]);
    spec([received]).when(receive).thenFails('order_exists');
  });

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

  it("updates an item's barcode and records its regeneration; never for an unknown item, no update once cancelled", () => {
    const barcode = { format: 'qrcode' as const, value: 'NEW-1' };
    const unknown = '99999999-9999-4999-8999-999999999999';
    spec([received])
      .when({ type: 'UpdateBarcode', orderItemId: a.orderItemId, barcode, at })
      .thenEvents([
        {
          type: 'OrderItemBarcodeUpdated',
          data: { orderItemId: a.orderItemId, barcode, updatedAt: iso },
        },
      ]);
    spec([received])
      .when({ type: 'UpdateBarcode', orderItemId: unknown, barcode, at })
      .thenFails('order_item_not_found');
    spec([received, { type: 'OrderCancelled', data: { cancelledAt: iso } }])
      .when({ type: 'UpdateBarcode', orderItemId: a.orderItemId, barcode, at })
      .thenFails('order_cancelled');
    spec([received])
      .when({ type: 'RecordBarcodeRegenerated', orderItemId: a.orderItemId, barcode, at })
      .thenEvents([
        {
          type: 'BarcodeRegenerated',
          data: { orderItemId: a.orderItemId, barcode, regeneratedAt: iso },
        },
      ]);
    spec([received])
      .when({ type: 'RecordBarcodeRegenerated', orderItemId: unknown, barcode, at })
      .thenFails('order_item_not_found');
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

  describe('on the shop floor', () => {
    const later = (minutes: number) => new Date(at.getTime() + minutes * 60_000);
    const made = [received, started, printed(a.orderItemId, 'aa'), printed(b.orderItemId, 'bb')];
    const stage = (orderItemId: string, s: 'printed' | 'packed') => ({
      type: 'RecordItemStage' as const,
      orderItemId,
      stage: s,
      via: 'scan' as const,
      station: 'Press 1',
      at,
    });
    const itemPrinted = (orderItemId: string): OrderEvent => ({
      type: 'OrderItemPrinted',
      data: { orderItemId, via: 'scan', station: 'Press 1', printedAt: iso },
    });
    const itemPacked = (orderItemId: string): OrderEvent => ({
      type: 'OrderItemPacked',
      data: { orderItemId, via: 'scan', station: 'Press 1', packedAt: iso },
    });
    const shipmentId = '55555555-5555-4555-8555-555555555555';
    const ship = {
      type: 'ShipItems' as const,
      shipmentId,
      carrier: 'DHL',
      trackingNumber: '00340434161094042557',
      shippedAt: at,
      at,
    };
    const shipped: OrderEvent = {
      type: 'OrderShipped',
      data: {
        shipmentId,
        orderItemIds: [a.orderItemId, b.orderItemId],
        carrier: 'DHL',
        trackingNumber: '00340434161094042557',
        shippedAt: iso,
      },
    };
    const holdId = '66666666-6666-4666-8666-666666666666';
    const held: OrderEvent = {
      type: 'OrderHeld',
      data: { holdId, reason: 'artwork query', heldAt: iso },
    };

    it('moves an item forward once: the same report again is a no-op, going back a conflict', () => {
      spec(made)
        .when(stage(a.orderItemId, 'printed'))
        .thenEvents([itemPrinted(a.orderItemId)]);
      spec([...made, itemPrinted(a.orderItemId)])
        .when(stage(a.orderItemId, 'printed'))
        .thenEvents([]);
      spec([...made, itemPrinted(a.orderItemId), itemPacked(a.orderItemId)])
        .when(stage(a.orderItemId, 'printed'))
        .thenFails('stage_conflict');
      // packed straight from ready: a stage may be skipped, never undone
      spec(made)
        .when(stage(b.orderItemId, 'packed'))
        .thenEvents([itemPacked(b.orderItemId)]);
    });

    it('has nothing to cancel once every item has shipped', () => {
      spec([...made, shipped])
        .when({ type: 'CancelOrder', at })
        .thenFails('order_shipped');
    });

    it('refuses a shipment dated before the order was received', () => {
      spec(made)
        .when({ ...ship, shippedAt: new Date('0001-01-01T00:00:00Z') })
        .thenFails('invalid_shipped_at');
    });

    it('has nothing to scan before the print file is made', () => {
      spec([received, started]).when(stage(a.orderItemId, 'printed')).thenFails('stage_conflict');
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

    it('reprints a printed item: reprinting, then back on the floor once verified, and ships again', () => {
      const reprintId = '88888888-8888-4888-8888-888888888888';
      const request = {
        type: 'RequestReprint' as const,
        reprintId,
        orderItemId: a.orderItemId,
        reason: 'damaged' as const,
        at,
      };
      spec(made).when(request).thenFails('stage_conflict');
      const requested: OrderEvent = {
        type: 'OrderItemReprintRequested',
        data: { reprintId, orderItemId: a.orderItemId, reason: 'damaged', requestedAt: iso },
      };
      spec([...made, shipped])
        .when(request)
        .thenEvents([requested]);
      spec([...made, shipped, requested])
        .when(request)
        .thenEvents([]);
      const record = {
        type: 'RecordReprint' as const,
        reprintId,
        orderItemId: a.orderItemId,
        expected: 'aa',
        actual: 'aa',
        at,
      };
      const reprinted: OrderEvent = {
        type: 'OrderItemReprinted',
        data: {
          reprintId,
          orderItemId: a.orderItemId,
          reason: 'damaged',
          expected: 'aa',
          actual: 'aa',
          matches: true,
          reprintedAt: iso,
        },
      };
      // reprinting, it can be neither scanned nor shipped until the file is checked
      spec([...made, shipped, requested])
        .when(stage(a.orderItemId, 'printed'))
        .thenFails('stage_conflict');
      spec([...made, shipped, requested])
        .when(record)
        .thenEvents([reprinted]);
      spec([...made, shipped, requested, reprinted])
        .when(record)
        .thenEvents([]);
      const again = [...made, shipped, requested, reprinted];
      spec(again)
        .when(stage(a.orderItemId, 'printed'))
        .thenEvents([itemPrinted(a.orderItemId)]);
      const second = '99999999-9999-4999-8999-999999999999';
      spec(again)
        .when({ ...ship, shipmentId: second, orderItemIds: [a.orderItemId] })
        .thenEvents([
          {
            type: 'OrderShipped',
            data: { ...shipped.data, shipmentId: second, orderItemIds: [a.orderItemId] },
          } as OrderEvent,
        ]);
    });

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
});

describe('order decider: press runs', () => {
  const batchId = '55555555-5555-4555-8555-555555555555';
  const other = '66666666-6666-4666-8666-666666666666';
  const ready = [received, started, printed(a.orderItemId, 'f1')];
  const batched: OrderEvent = {
    type: 'OrderItemBatched',
    data: { orderItemId: a.orderItemId, batchId, batchedAt: iso },
  };
  const batch = (id = batchId) =>
    ({ type: 'BatchItem', orderItemId: a.orderItemId, batchId: id, at }) as const;

  it('batches a ready item once; the same batch again changes nothing, another is refused', () => {
    spec(ready).when(batch()).thenEvents([batched]);
    spec([...ready, batched])
      .when(batch())
      .thenEvents([]);
    spec([...ready, batched])
      .when(batch(other))
      .thenFails('stage_conflict');
  });

  it('refuses items not rendered, on hold or cancelled', () => {
    spec([received, started]).when(batch()).thenFails('stage_conflict');
    spec([...ready, { type: 'OrderHeld', data: { holdId: other, reason: 'address', heldAt: iso } }])
      .when(batch())
      .thenFails('order_on_hold');
    spec([...ready, { type: 'OrderCancelled', data: { cancelledAt: iso } }])
      .when(batch())
      .thenFails('order_cancelled');
  });

  it('lets an item go only for the batch that holds it, and never once printed', () => {
    const unbatch = (id: string) =>
      ({
        type: 'UnbatchItem',
        orderItemId: a.orderItemId,
        batchId: id,
        reason: 'cancelled',
        at,
      }) as const;
    spec([...ready, batched])
      .when(unbatch(batchId))
      .thenEvents([
        {
          type: 'OrderItemUnbatched',
          data: { orderItemId: a.orderItemId, batchId, reason: 'cancelled', unbatchedAt: iso },
        },
      ]);
    spec([...ready, batched])
      .when(unbatch(other))
      .thenEvents([]);
    const printedOnSheet: OrderEvent = {
      type: 'OrderItemPrinted',
      data: { orderItemId: a.orderItemId, via: 'batch', batchId, printedAt: iso },
    };
    spec([...ready, batched, printedOnSheet])
      .when(unbatch(batchId))
      .thenEvents([]);
  });

  it('prints a batched item when its sheet is scanned, naming the batch', () => {
    spec([...ready, batched])
      .when({
        type: 'RecordItemStage',
        orderItemId: a.orderItemId,
        stage: 'printed',
        via: 'batch',
        batchId,
        at,
      })
      .thenEvents([
        {
          type: 'OrderItemPrinted',
          data: { orderItemId: a.orderItemId, via: 'batch', batchId, printedAt: iso },
        },
      ]);
  });
});

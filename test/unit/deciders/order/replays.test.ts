import { describe, it } from 'vitest';
import type { OrderEvent } from '../../../../src/domain/order/events.ts';
import {
  a,
  at,
  b,
  iso,
  itemPrinted,
  made,
  printed,
  received,
  ship,
  shipped,
  spec,
  stage,
  started,
} from './fixtures.ts';

describe('order decider: replays and reprints', () => {
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

  it('reprints some records of a variable item only: a file of just those, verified record by record', () => {
    if (received.type !== 'OrderReceived') throw new Error('fixture');
    const dataset = {
      datasetId: '44444444-4444-4444-8444-444444444444',
      sha256: 'd'.repeat(64),
      rows: 10,
      fields: ['name'],
      storageKey: 'l/d.sealed',
      labelImagesAt: 0,
    };
    const variable: OrderEvent = {
      type: 'OrderReceived',
      data: {
        ...received.data,
        items: received.data.items.map((i) =>
          i.orderItemId === a.orderItemId ? { ...i, dataset } : i,
        ),
      },
    };
    const history = [variable, ...made.slice(1), shipped];
    const reprintId = '88888888-8888-4888-8888-888888888888';
    const ask = (orderItemId: string, records: number[]) => ({
      type: 'RequestReprint' as const,
      reprintId,
      orderItemId,
      reason: 'damaged' as const,
      records,
      at,
    });
    spec(history)
      .when(ask(b.orderItemId, [1]))
      .thenFails('not_variable');
    spec(history)
      .when(ask(a.orderItemId, [3, 11]))
      .thenFails('record_not_found');
    const requested: OrderEvent = {
      type: 'OrderItemReprintRequested',
      data: {
        reprintId,
        orderItemId: a.orderItemId,
        reason: 'damaged',
        records: [3, 7],
        requestedAt: iso,
      },
    };
    spec(history)
      .when(ask(a.orderItemId, [3, 7]))
      .thenEvents([requested]);
    const file = { storageKey: 'k/reprints/ff.pdf', sha256: 'f'.repeat(64), pages: 2, bytes: 9 };
    const record = (matched: boolean) => ({
      type: 'RecordReprint' as const,
      reprintId,
      orderItemId: a.orderItemId,
      expected: 'aa',
      actual: 'aa',
      records: { file, matched },
      at,
    });
    const reprinted = (matches: boolean): OrderEvent => ({
      type: 'OrderItemReprinted',
      data: {
        reprintId,
        orderItemId: a.orderItemId,
        reason: 'damaged',
        expected: 'aa',
        actual: 'aa',
        matches,
        records: [3, 7],
        file,
        reprintedAt: iso,
      },
    });
    spec([...history, requested])
      .when(record(true))
      .thenEvents([reprinted(true)]);
    // one record's bytes differing is a mismatch, whatever the whole file's hash says
    spec([...history, requested])
      .when(record(false))
      .thenEvents([
        reprinted(false),
        {
          type: 'PrintFileMismatchDetected',
          data: {
            replayId: reprintId,
            orderItemId: a.orderItemId,
            expected: 'aa',
            actual: 'aa',
            detectedAt: iso,
          },
        },
      ]);
  });
});

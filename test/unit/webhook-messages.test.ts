import { describe, expect, it } from 'vitest';
import { type OrderEvent, orderEvents } from '../../src/domain/order/events.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/shop-integration/events.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { MESSAGE_SCHEMAS, orderMessageSchema } from '../../src/webhooks/message-schemas.ts';
import { TOLD, webhookMessage } from '../../src/webhooks/messages.ts';

const item = '11111111-1111-4111-8111-111111111111';
const at = '2026-11-24T10:00:00.000Z';
const sha = 'a'.repeat(64);
const DATA: Record<string, Record<string, unknown>> = {
  OrderReceived: {
    orderId: 'O-1',
    labelId: '33333333-3333-4333-8333-333333333333',
    bodyHash: 'h',
    source: { channel: 'shop' },
    customer: null,
    items: [
      {
        orderItemId: item,
        itemId: 'line-1',
        projectId: '44444444-4444-4444-8444-444444444444',
        quantity: 5,
        sku: 'TEE-1',
        supplier: 'supplier-a',
        printMethod: 'digital',
        printColors: 4,
        printAreas: [],
        design: { areas: [] },
      },
    ],
    receivedAt: at,
    renderDueAt: at,
    print: {
      renderer: 2,
      outputProfile: { sha256: sha, description: 'd' },
      cropMarks: false,
      maxInkCoverage: 300,
      inkMethods: [],
    },
  },
  PrintFileGenerated: {
    orderItemId: item,
    storageKey: 'k',
    sha256: sha,
    pages: 2,
    bytes: 2400,
    barcode: { format: 'code128', value: 'X' },
    images: [],
    warnings: [],
    generatedAt: at,
  },
  OrderItemFailed: { orderItemId: item, reason: 'broken', kind: 'layout', failedAt: at },
  OrderReady: { readyAt: at },
  OrderFailed: { reason: 'line-1 failed', failedAt: at },
  OrderWentOverdue: { renderDueAt: at, noticedAt: at },
  OrderCancelled: { reason: 'no', cancelledAt: at },
  BarcodeRegenerated: {
    orderItemId: item,
    barcode: { format: 'ean13', value: '4006381333931' },
    regeneratedAt: at,
  },
  OrderReplayed: {
    replayId: 'r-1',
    results: [{ orderItemId: item, expected: sha, actual: sha, matches: true }],
    replayedAt: at,
  },
};

/** The messages the service makes are what the published schemas say, type by type. */
describe('order messages', () => {
  it('match their schema for every event shops are told of', () => {
    expect(Object.keys(DATA).sort()).toEqual([...TOLD].sort());
    const ref = {
      orderId: 'O-1',
      labelId: DATA.OrderReceived!.labelId as string,
      integrationId: undefined,
      orderItemIds: [item],
    };
    const seen = new Set<string>();
    for (const [n, [type, data]] of Object.entries(DATA).entries()) {
      const stored = {
        id: `00000000-0000-4000-8000-00000000000${n}`,
        type,
        schemaVersion: type === 'OrderReceived' ? 3 : type === 'OrderItemFailed' ? 2 : 1,
        data,
        metadata: {},
        streamId: 'Order-x',
        revision: BigInt(n),
        position: { commit: 1n, prepare: BigInt(n) },
        recordedAt: new Date(at),
      } satisfies RecordedEvent;
      const message = webhookMessage(ref, stored, orderEvents.deserialize(stored) as OrderEvent)!;
      expect(message, type).toBeDefined();
      expect(MESSAGE_SCHEMAS[message.type].entry.parse(message), type).toEqual(message);
      const { id: _id, ...body } = message;
      expect(MESSAGE_SCHEMAS[message.type].body.parse(body), type).toEqual(body);
      expect(orderMessageSchema.parse(message)).toEqual(message);
      seen.add(message.type);
    }
    expect([...seen].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });
});

import { describe, expect, it } from 'vitest';
import { auditHeadEvents } from '../../src/domain/audit/events.ts';
import { type OrderEvent, orderEvents } from '../../src/domain/order/events.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/shop-integration/events.ts';
import { MESSAGE_SCHEMAS, orderMessageSchema } from '../../src/webhooks/message-schemas.ts';
import { TOLD, treeHeadMessage, webhookMessage } from '../../src/webhooks/messages.ts';
import { recordedEvent, SAMPLE_ITEM, SAMPLE_ORDER_EVENTS } from '../helpers/order-events.ts';

const item = SAMPLE_ITEM;
const DATA = Object.fromEntries(
  Object.entries(SAMPLE_ORDER_EVENTS).filter(([type]) => TOLD.has(type)),
);

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
      const stored = recordedEvent(type, data, { revision: n });
      const message = webhookMessage(ref, stored, orderEvents.deserialize(stored) as OrderEvent)!;
      expect(message, type).toBeDefined();
      expect(MESSAGE_SCHEMAS[message.type].entry.parse(message), type).toEqual(message);
      const { id: _id, ...body } = message;
      expect(MESSAGE_SCHEMAS[message.type].body.parse(body), type).toEqual(body);
      expect(orderMessageSchema.parse(message)).toEqual(message);
      seen.add(message.type);
    }
    // the label's daily tree head, of no order
    const published = recordedEvent('TreeHeadPublished', {
      labelId: ref.labelId,
      day: '2026-11-24',
      head: {
        treeSize: 42,
        rootHash: 'ab'.repeat(32),
        timestamp: '2026-11-24T07:59:50.000Z',
        keyId: '0123456789abcdef',
        signature: 'c2lnbmF0dXJl',
      },
      publishedAt: '2026-11-24T08:00:00.000Z',
    });
    const head = treeHeadMessage(published, auditHeadEvents.deserialize(published));
    expect(MESSAGE_SCHEMAS['audit.tree_head'].entry.parse(head)).toEqual(head);
    expect(orderMessageSchema.parse(head)).toEqual(head);
    // its data is a head as GET /api/audit/tree-head gives it: what the verifier takes
    expect(head.data).toEqual({ day: '2026-11-24', ...(published.data.head as object) });
    seen.add(head.type);
    expect([...seen].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });
});

import { orderDecider } from '../../../../src/domain/order/decider.ts';
import type { OrderEvent, OrderItem } from '../../../../src/domain/order/events.ts';
import { specFor } from '../../../helpers/decider-spec.ts';

/** What the order's specs share: an order of two items, received, rendered, on the floor. */

export const labelId = '22222222-2222-4222-8222-222222222222';
export const at = new Date('2026-01-02T03:04:05.000Z');
export const iso = at.toISOString();
export const item = (orderItemId: string, itemId: string): OrderItem => ({
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
export const a = item('11111111-1111-4111-8111-111111111111', 'l1');
export const b = item('33333333-3333-4333-8333-333333333333', 'l2');
export const spec = specFor(orderDecider);
export const print = {
  renderer: 2,
  outputProfile: { sha256: 'a'.repeat(64), description: 'Test CMYK' },
  cropMarks: false,
  maxInkCoverage: 300,
  inkMethods: ['screen'],
};

export const received: OrderEvent = {
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
    shipTo: null,
    shipToCountry: null,
    personalDataKey: null,
  },
};
export const started: OrderEvent = { type: 'OrderRenderingStarted', data: { startedAt: iso } };
export const file = (orderItemId: string, sha256: string) => ({
  storageKey: `${labelId}/${orderItemId}/${sha256}.pdf`,
  sha256,
  pages: 1,
  bytes: 1000,
  barcode: { format: 'code128' as const, value: orderItemId },
  warnings: [],
});
export const printed = (orderItemId: string, sha256: string): OrderEvent => ({
  type: 'PrintFileGenerated',
  data: { orderItemId, ...file(orderItemId, sha256), images: [], generatedAt: iso },
});
export const failed = (orderItemId: string, reason: string): OrderEvent => ({
  type: 'OrderItemFailed',
  data: { orderItemId, reason, kind: 'image_missing', failedAt: iso },
});

export const later = (minutes: number) => new Date(at.getTime() + minutes * 60_000);
export const made = [received, started, printed(a.orderItemId, 'aa'), printed(b.orderItemId, 'bb')];
export const stage = (orderItemId: string, s: 'printed' | 'packed') => ({
  type: 'RecordItemStage' as const,
  orderItemId,
  stage: s,
  via: 'scan' as const,
  station: 'Press 1',
  at,
});
export const itemPrinted = (orderItemId: string): OrderEvent => ({
  type: 'OrderItemPrinted',
  data: { orderItemId, via: 'scan', station: 'Press 1', printedAt: iso },
});
export const itemPacked = (orderItemId: string): OrderEvent => ({
  type: 'OrderItemPacked',
  data: { orderItemId, via: 'scan', station: 'Press 1', packedAt: iso },
});
export const shipmentId = '55555555-5555-4555-8555-555555555555';
export const ship = {
  type: 'ShipItems' as const,
  shipmentId,
  carrier: 'DHL',
  trackingNumber: '00340434161094042557',
  shippedAt: at,
  at,
};
export const shipped: OrderEvent = {
  type: 'OrderShipped',
  data: {
    shipmentId,
    orderItemIds: [a.orderItemId, b.orderItemId],
    carrier: 'DHL',
    trackingNumber: '00340434161094042557',
    shippedAt: iso,
  },
};
export const holdId = '66666666-6666-4666-8666-666666666666';
export const held: OrderEvent = {
  type: 'OrderHeld',
  data: { holdId, reason: 'artwork query', heldAt: iso },
};

export const batchId = '55555555-5555-4555-8555-555555555555';
export const other = '66666666-6666-4666-8666-666666666666';
export const ready = [received, started, printed(a.orderItemId, 'f1')];
export const batched: OrderEvent = {
  type: 'OrderItemBatched',
  data: { orderItemId: a.orderItemId, batchId, batchedAt: iso },
};
export const batch = (id = batchId) =>
  ({ type: 'BatchItem', orderItemId: a.orderItemId, batchId: id, at }) as const;

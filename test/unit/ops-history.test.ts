import { describe, expect, it } from 'vitest';
import { orderEvents } from '../../src/domain/order/events.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import {
  actorName,
  historyEntry,
  historyNames,
  plainLayerText,
} from '../../src/http/routes/ops/views/history.ts';

const item = '11111111-1111-4111-8111-111111111111';
const integration = '22222222-2222-4222-8222-222222222222';
const at = '2026-11-24T10:00:00.000Z';
const sha = 'a'.repeat(64);
const barcode = { format: 'code128', value: 'X-1' };
const rule = {
  rule: 'total_ink_coverage',
  severity: 'failure',
  result: 'failure',
  detail: '320% over 300%',
};

/** One event of every type the order stream holds, with data as the service writes it. */
const DATA: Record<string, Record<string, unknown>> = {
  OrderReceived: {
    orderId: 'O-1',
    labelId: '33333333-3333-4333-8333-333333333333',
    bodyHash: 'h',
    source: { channel: 'shop', integrationId: integration },
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
        printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 80, heightMm: 50 }],
        design: { areas: [{ printArea: 'FRONT', layers: [] }] },
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
  OrderRenderingStarted: { startedAt: at },
  PrintFileGenerated: {
    orderItemId: item,
    storageKey: 'k',
    sha256: sha,
    pages: 2,
    bytes: 2_400_000,
    barcode,
    images: [],
    warnings: ['design.areas.0.layers.1: 25 dpi at its placed size (under 150)'],
    generatedAt: at,
  },
  OrderItemFailed: {
    orderItemId: item,
    reason: 'design.areas.0.layers.0: the image is missing',
    kind: 'image_missing',
    failedAt: at,
  },
  PrintFilePreflighted: {
    orderItemId: item,
    sha256: sha,
    passed: false,
    rules: [rule],
    plates: ['Cyan'],
    maxInkCoverage: 320,
    checkedAt: at,
  },
  OrderReady: { readyAt: at },
  OrderFailed: { reason: 'line-1: broken', failedAt: at },
  OrderItemBarcodeUpdated: { orderItemId: item, barcode, updatedAt: at },
  BarcodeRegenerated: { orderItemId: item, barcode, regeneratedAt: at },
  OrderRetryRequested: { retryId: item, orderItemIds: [item], requestedAt: at },
  OrderCancelled: { reason: 'customer asked', cancelledAt: at },
  OrderWentOverdue: { renderDueAt: at, noticedAt: at },
  OrderReplayRequested: { replayId: item, requestedAt: at },
  OrderReplayed: {
    replayId: item,
    results: [{ orderItemId: item, expected: sha, actual: sha, matches: true }],
    replayedAt: at,
  },
  PrintFileMismatchDetected: {
    replayId: item,
    orderItemId: item,
    expected: sha,
    actual: 'b'.repeat(64),
    detectedAt: at,
  },
};

const recorded = (
  type: string,
  data: Record<string, unknown>,
  actor = 'workflow:print',
): RecordedEvent => ({
  id: type,
  type,
  schemaVersion: orderEvents.has(type)
    ? type === 'OrderReceived'
      ? 3
      : type === 'OrderItemFailed'
        ? 2
        : 1
    : 1,
  data,
  metadata: { actor },
  streamId: 'Order-x',
  revision: 0n,
  position: { commit: 1n, prepare: 1n },
  recordedAt: new Date(at),
});

describe('the ops page’s history', () => {
  const events = Object.entries(DATA).map(([type, data]) => recorded(type, data));
  const names = historyNames(events, new Map([[integration, 'Demo web shop']]));

  it('says every event of an order in a sentence of its facts, never as raw data', () => {
    expect(Object.keys(DATA).sort()).toEqual([...orderEvents.types].sort());
    for (const e of events) {
      const { title, text } = historyEntry(e, names);
      expect(title.length, e.type).toBeGreaterThan(3);
      expect(text.length, e.type).toBeGreaterThan(3);
      expect(`${title} ${text}`, e.type).not.toMatch(/[{}[\]]|design\.areas|undefined|\[object/);
    }
    expect(historyEntry(events[0]!, names).text).toBe(
      '1 item (line-1: 5 × TEE-1) reported by shop “Demo web shop”; due to be rendered by 2026-11-24 10:00:00 UTC.',
    );
    expect(historyEntry(events[2]!, names).text).toContain(
      'layer 2 on FRONT: 25 dpi at its placed size (under 150)',
    );
  });

  it('says an event of a type it does not know as plain facts', () => {
    const e = recorded('OrderItemPrinted', {
      orderItemId: item,
      station: 'press 2',
      printedAt: at,
      nested: { a: 1 },
    });
    expect(historyEntry(e, names)).toEqual({
      title: 'Order item printed',
      text: `order item id ${item} · station press 2 · printed at 2026-11-24 10:00:00 UTC.`,
    });
  });

  it('names who did it', () => {
    expect(actorName(`integration:${integration}`, names)).toBe('shop “Demo web shop”');
    expect(actorName('operator', names)).toBe('the operator');
    expect(actorName('system:deadlines', names)).toBe('the deadline watch');
    expect(actorName('workflow:print', names)).toBe('the print workflow');
    expect(actorName(undefined, names)).toBe('someone unknown');
  });

  it('reads old texts of layers by their place as people name them', () => {
    expect(plainLayerText('design.areas.1.layers.0: 25 dpi', ['FRONT', 'BACK'])).toBe(
      'layer 1 on BACK: 25 dpi',
    );
    expect(plainLayerText('design.areas.0: print area X is not on Y', ['FRONT'])).toBe(
      'print area FRONT: print area X is not on Y',
    );
    expect(plainLayerText('design.areas.3.layers.0: x', ['FRONT'])).toBe(
      'design.areas.3.layers.0: x',
    );
  });
});

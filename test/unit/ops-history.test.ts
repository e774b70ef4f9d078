import { describe, expect, it } from 'vitest';
import { orderEvents } from '../../src/domain/order/events.ts';
import {
  actorName,
  historyEntry,
  historyNames,
  plainLayerText,
} from '../../src/http/routes/ops/views/history.ts';
import {
  recordedEvent,
  SAMPLE_AT,
  SAMPLE_INTEGRATION,
  SAMPLE_ITEM,
  SAMPLE_ORDER_EVENTS,
} from '../helpers/order-events.ts';

const item = SAMPLE_ITEM;
const integration = SAMPLE_INTEGRATION;
const DATA = SAMPLE_ORDER_EVENTS;
const recorded = (type: string, data: Record<string, unknown>) => recordedEvent(type, data);

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
      '1 item (line-1: 5 × TEE-1) reported by shop “Demo web shop”; due to be rendered by 2026-11-24 10:00:00 UTC. To be shipped to DE.',
    );
    expect(historyEntry(events[2]!, names).text).toContain(
      'layer 2 on FRONT: 25 dpi at its placed size (under 150)',
    );
  });

  it('says an event of a type it does not know as plain facts', () => {
    const e = recorded('OrderItemEngraved', {
      orderItemId: item,
      station: 'press 2',
      engravedAt: SAMPLE_AT,
      nested: { a: 1 },
    });
    expect(historyEntry(e, names)).toEqual({
      title: 'Order item engraved',
      text: `order item id ${item} · station press 2 · engraved at 2026-11-24 10:00:00 UTC.`,
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

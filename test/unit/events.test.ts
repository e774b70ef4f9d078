import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent, EventRegistry, UnknownEventError } from '../../src/domain/shared/events.ts';

// A v2 event whose v1 payload named the field differently: reading upcasts, writing stamps v2.
const Renamed = defineEvent(
  'ThingRenamed',
  2,
  z.object({ thingId: z.string(), title: z.string() }),
  {
    1: (d) => ({ thingId: d.thingId, title: d.name }),
  },
);
type E = { type: 'ThingRenamed'; data: { thingId: string; title: string } };
const registry = new EventRegistry<E>([Renamed]);

describe('event registry', () => {
  it('upcasts a stored v1 payload to the current version', () => {
    expect(
      registry.deserialize({
        type: 'ThingRenamed',
        schemaVersion: 1,
        data: { thingId: 't', name: 'Old' },
      }),
    ).toEqual({
      type: 'ThingRenamed',
      data: { thingId: 't', title: 'Old' },
    });
  });
  it('reads a current payload as it is', () => {
    expect(
      registry.deserialize({
        type: 'ThingRenamed',
        schemaVersion: 2,
        data: { thingId: 't', title: 'New' },
      }).data.title,
    ).toBe('New');
  });
  it('stamps the current version and validates when serializing', () => {
    expect(
      registry.serialize({ type: 'ThingRenamed', data: { thingId: 't', title: 'x' } })
        .schemaVersion,
    ).toBe(2);
    expect(() =>
      registry.serialize({ type: 'ThingRenamed', data: { thingId: 't' } as never }),
    ).toThrow();
  });
  it('rejects unknown types and a definition without its upcasters', () => {
    expect(() => registry.deserialize({ type: 'Nope', schemaVersion: 1, data: {} })).toThrow(
      UnknownEventError,
    );
    expect(() => defineEvent('X', 3, z.object({}), { 1: (d) => d })).toThrow(
      /upcaster from version 2/,
    );
  });
});

describe('order events stored before deadlines and failure kinds', () => {
  it('reads a v1 OrderReceived as due 30 minutes after its receipt', async () => {
    const { orderEvents } = await import('../../src/domain/order/events.ts');
    const e = orderEvents.deserialize({
      type: 'OrderReceived',
      schemaVersion: 1,
      data: {
        orderId: 'OLD-1',
        labelId: '22222222-2222-4222-8222-222222222222',
        bodyHash: 'h',
        source: { channel: 'shop' },
        customer: null,
        items: [],
        receivedAt: '2025-03-01T10:00:00.000Z',
      },
    });
    expect(e.type === 'OrderReceived' && e.data.renderDueAt).toBe('2025-03-01T10:30:00.000Z');
    // and as made by the first renderer: its print files replay as they were made
    expect(e.type === 'OrderReceived' && e.data.print.renderer).toBe(1);
  });
  it('reads a v1 OrderItemFailed as of kind unknown, its reason kept', async () => {
    const { orderEvents } = await import('../../src/domain/order/events.ts');
    const e = orderEvents.deserialize({
      type: 'OrderItemFailed',
      schemaVersion: 1,
      data: {
        orderItemId: '11111111-1111-4111-8111-111111111111',
        reason: 'design.areas.0.layers.0: the image is missing',
        failedAt: '2025-03-01T10:00:01.000Z',
      },
    });
    expect(e.data).toMatchObject({
      kind: 'unknown',
      reason: 'design.areas.0.layers.0: the image is missing',
    });
  });
});

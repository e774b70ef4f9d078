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

import { describe, expect, it } from 'vitest';
import type { EventMetadata } from '../../src/eventstore/port.ts';
import {
  activeTraceparent,
  contextOf,
  inChildSpan,
  traced,
  withTraceparent,
} from '../../src/telemetry/tracing.ts';

/** With no SDK started (no OTLP endpoint), tracing is nothing: no span, no traceparent. */
describe('tracing when off', () => {
  it('adds nothing to events and runs the work as it is', async () => {
    const events: { id: string; metadata: EventMetadata }[] = [
      { id: 'a', metadata: { actor: 'test' } },
    ];
    expect(traced(events)).toBe(events);
    expect(withTraceparent<EventMetadata>({ actor: 'test' })).toEqual({ actor: 'test' });
    expect(activeTraceparent()).toBeUndefined();
    expect(await inChildSpan('append', {}, async () => 42)).toBe(42);
  });

  it('keeps a traceparent an event already names', () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(withTraceparent({ traceparent })).toEqual({ traceparent });
    // a recorded traceparent is a context to continue, even with the API off
    expect(contextOf(traceparent)).toBeDefined();
  });
});

import { randomUUID } from 'node:crypto';
import { type Decider, fold } from '../domain/shared/decider.ts';
import type { EventRegistry } from '../domain/shared/events.ts';
import {
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '../eventstore/port.ts';

export interface Handled<E, S> {
  events: E[];
  state: S;
  /** undefined when the command decided no events */
  appended: AppendResult | undefined;
}

/**
 * read stream -> fold -> decide -> append at the revision that was read. A concurrent
 * writer makes the append fail with WrongExpectedRevisionError; the command is then
 * decided once more on the fresh state (safe: decide is pure), and a second conflict
 * goes to the caller (409).
 */
export async function handleCommand<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  registry: EventRegistry<E>,
  decider: Decider<C, E, S>,
  streamId: string,
  command: C,
  metadata: EventMetadata,
  /** ids for the decided events; derived ids make a retried command append nothing twice */
  eventId: (index: number) => string = () => randomUUID(),
): Promise<Handled<E, S>> {
  return handleCommandOn(store, registry, decider, streamId, command, metadata, eventId, undefined);
}

/**
 * handleCommand on events the caller has just read and folded itself, which saves a
 * read; a conflict still re-reads and decides once more.
 */
export async function handleCommandOn<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  registry: EventRegistry<E>,
  decider: Decider<C, E, S>,
  streamId: string,
  command: C,
  metadata: EventMetadata,
  eventId: (index: number) => string,
  read: { stored: RecordedEvent[]; state: S } | undefined,
): Promise<Handled<E, S>> {
  for (let attempt = 0; ; attempt++) {
    const { stored, state } =
      read && attempt === 0 ? read : await readState(store, registry, decider, streamId);
    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, appended: undefined };
    const expected = stored.length === 0 ? 'no_stream' : stored[stored.length - 1]!.revision;
    try {
      const appended = await store.append(
        streamId,
        events.map((e, i) => ({ id: eventId(i), ...registry.serialize(e), metadata })),
        expected,
      );
      return { events, state: events.reduce(decider.evolve, state), appended };
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError && attempt === 0) continue;
      throw err;
    }
  }
}

/** Reads an aggregate's current state. */
export async function loadState<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  registry: EventRegistry<E>,
  decider: Decider<C, E, S>,
  streamId: string,
): Promise<S> {
  return (await readState(store, registry, decider, streamId)).state;
}

/** The stream's events and the state they fold to. */
export async function readState<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  registry: EventRegistry<E>,
  decider: Decider<C, E, S>,
  streamId: string,
): Promise<{ stored: RecordedEvent[]; state: S }> {
  const stored = await store.readStream(streamId);
  return {
    stored,
    state: fold(
      decider,
      stored.map((e) => registry.deserialize(e)),
    ),
  };
}

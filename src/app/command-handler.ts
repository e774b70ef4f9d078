import { randomUUID } from 'node:crypto';
import { type Aggregate, fold } from '../domain/shared/decider.ts';
import { deterministicId } from '../domain/shared/ids.ts';
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

export interface CommandOptions<S> {
  /**
   * Ids for the decided events (default: random). Ids derived from what is recorded
   * (`derivedIds`) make a retried command, a retried activity say, append nothing twice.
   */
  eventIds?: (index: number) => string;
  /** the stream as the caller has just read and folded it: spares a read */
  read?: { stored: RecordedEvent[]; state: S };
}

/** Event ids derived from business facts: the same facts, the same ids. */
export const derivedIds =
  (...parts: string[]) =>
  (index: number) =>
    deterministicId(...parts, String(index));

/**
 * read stream -> fold -> decide -> append at the revision that was read. A concurrent
 * writer makes the append fail with WrongExpectedRevisionError; the command is then
 * decided once more on the fresh state (safe: decide is pure), and a second conflict
 * goes to the caller (409).
 */
export async function handleCommand<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  aggregate: Aggregate<C, E, S, never>,
  streamId: string,
  command: C,
  metadata: EventMetadata,
  options: CommandOptions<S> = {},
): Promise<Handled<E, S>> {
  const eventId = options.eventIds ?? (() => randomUUID());
  const { events: registry, decider } = aggregate;
  for (let attempt = 0; ; attempt++) {
    const { stored, state } =
      options.read && attempt === 0 ? options.read : await readState(store, aggregate, streamId);
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
  aggregate: Aggregate<C, E, S, never>,
  streamId: string,
): Promise<S> {
  return (await readState(store, aggregate, streamId)).state;
}

/** The stream's events and the state they fold to. */
export async function readState<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  aggregate: Aggregate<C, E, S, never>,
  streamId: string,
): Promise<{ stored: RecordedEvent[]; state: S }> {
  const stored = await store.readStream(streamId);
  return {
    stored,
    state: fold(
      aggregate.decider,
      stored.map((e) => aggregate.events.deserialize(e)),
    ),
  };
}

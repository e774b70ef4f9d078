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
import type { FoldedStates } from './folded-states.ts';

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
  /** folded states kept between commands: only the events appended since are read */
  folded?: FoldedStates<S>;
  /** how many times a command beaten by a concurrent writer is decided again (1) */
  retries?: number;
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
  const { folded, retries = 1 } = options;
  let given = options.read;
  const current = async () => {
    if (given) {
      const { stored, state } = given;
      given = undefined;
      return { revision: stored.at(-1)?.revision, state };
    }
    if (folded) return folded.read(store, aggregate, streamId);
    const r = await readState(store, aggregate, streamId);
    return { revision: r.stored.at(-1)?.revision, state: r.state };
  };
  // a kept state is tried first, unread: only the append it leads to proves it current;
  // what it refuses or finds nothing to do is decided again on the stream as it is
  let unread = folded?.peek(streamId);
  let conflicts = 0;
  for (;;) {
    const trusted = unread === undefined;
    const { revision, state } = unread ?? (await current());
    unread = undefined;
    let events: E[];
    try {
      events = decider.decide(command, state);
    } catch (err) {
      if (trusted) throw err;
      continue;
    }
    if (events.length === 0) {
      if (trusted) return { events, state, appended: undefined };
      continue;
    }
    try {
      const appended = await store.append(
        streamId,
        events.map((e, i) => ({ id: eventId(i), ...registry.serialize(e), metadata })),
        revision === undefined ? 'no_stream' : revision,
      );
      const next = events.reduce(decider.evolve, state);
      if (folded) {
        // a duplicate append wrote nothing: what the stream holds is read next time
        if (appended.duplicate) folded.forget(streamId);
        else folded.keep(streamId, appended.nextRevision, next);
      }
      return { events, state: next, appended };
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError && (!trusted || conflicts++ < retries))
        continue;
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

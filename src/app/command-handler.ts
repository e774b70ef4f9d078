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
import { inChildSpan } from '../telemetry/tracing.ts';

export interface Handled<E, S> {
  events: E[];
  state: S;
  /** undefined when the command decided no events */
  appended: AppendResult | undefined;
}

export interface CommandOptions<S, C = never> {
  /**
   * Ids for the decided events (default: random). Ids derived from what is recorded
   * (`derivedIds`) make a retried command, a retried activity say, append nothing twice.
   */
  eventIds?: (index: number, decidedOn: S) => string;
  /**
   * The stream's state at a revision, as the caller has it: spares a read. `kept`: a
   * state kept from earlier, maybe behind the stream, so only an append at its revision
   * proves it current; a command it refuses or finds nothing to do for is decided again
   * on a read.
   */
  read?: StreamState<S>;
  /**
   * A command that follows in the same append when the first one decided events: given
   * the state they lead to, it answers the command, or undefined for none. (An order's
   * last print file and the order's completion: one append, one step.)
   */
  followedBy?: (state: S) => C | undefined;
  /**
   * How many conflicts with a concurrent writer are decided again on a fresh read before
   * the next goes to the caller: 1 by default (a client is told 409 soon); a reactor that
   * no client waits on, appending to a busy stream (routing, while an order's other items
   * are rendered), takes more.
   */
  conflictRetries?: number;
}

/** A stream's state and its last revision (undefined: no stream yet). */
export interface StreamState<S> {
  revision: bigint | undefined;
  state: S;
  kept?: true;
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
 * goes to the caller (409), unless `conflictRetries` allows more.
 */
export function handleCommand<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  aggregate: Aggregate<C, E, S, never>,
  streamId: string,
  command: C,
  metadata: EventMetadata,
  options: CommandOptions<S, C> = {},
): Promise<Handled<E, S>> {
  // in a trace, the command is a span around its read, its decision and its append
  const type = (command as { type?: unknown }).type;
  return inChildSpan(
    `command ${typeof type === 'string' ? type : 'unnamed'}`,
    { 'stream.id': streamId },
    () => decideAndAppend(store, aggregate, streamId, command, metadata, options),
  );
}

async function decideAndAppend<C, E extends { type: string; data: unknown }, S>(
  store: EventStore,
  aggregate: Aggregate<C, E, S, never>,
  streamId: string,
  command: C,
  metadata: EventMetadata,
  options: CommandOptions<S, C>,
): Promise<Handled<E, S>> {
  const eventId = options.eventIds ?? (() => randomUUID());
  const { events: registry, decider } = aggregate;
  let given = options.read;
  for (let conflicts = 0; ; ) {
    const { revision, state, kept }: StreamState<S> =
      given ?? (await readState(store, aggregate, streamId));
    given = undefined;
    let events: E[];
    try {
      events = decider.decide(command, state);
      const next = events.length > 0 ? options.followedBy : undefined;
      if (next) {
        const after = events.reduce(decider.evolve, state);
        const then = next(after);
        if (then) events = [...events, ...decider.decide(then, after)];
      }
    } catch (err) {
      if (kept) continue;
      throw err;
    }
    if (events.length === 0) {
      if (kept) continue;
      return { events, state, appended: undefined };
    }
    try {
      const appended = await store.append(
        streamId,
        events.map((e, i) => ({ id: eventId(i, state), ...registry.serialize(e), metadata })),
        revision ?? 'no_stream',
      );
      return { events, state: events.reduce(decider.evolve, state), appended };
    } catch (err) {
      if (
        err instanceof WrongExpectedRevisionError &&
        (kept || conflicts++ < (options.conflictRetries ?? 1))
      )
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
): Promise<{ stored: RecordedEvent[]; revision: bigint | undefined; state: S }> {
  const stored = await store.readStream(streamId);
  return {
    stored,
    revision: stored.at(-1)?.revision,
    state: fold(
      aggregate.decider,
      stored.map((e) => aggregate.events.deserialize(e)),
    ),
  };
}

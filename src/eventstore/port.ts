/**
 * The event store port. Two adapters implement it (PostgreSQL/PGlite and EventStoreDB)
 * and one contract suite (test/contract/eventstore.contract.ts) runs against each.
 */

/**
 * A place in the global order of all events. Compared as the pair (commit, prepare):
 * EventStoreDB's own $all position, and in the PostgreSQL adapter (transaction id,
 * sequence value), see postgres.ts for why.
 */
export interface Position {
  commit: bigint;
  prepare: bigint;
}

export const START: Position = { commit: -1n, prepare: -1n };

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export interface EventMetadata {
  correlationId?: string;
  causationId?: string;
  labelId?: string;
  /** who caused it, e.g. "operator", "admin:<labelId>", "integration:<id>" */
  actor?: string;
}

/** An event to append, already validated and serialised by its definition. */
export interface NewEvent {
  id: string;
  type: string;
  schemaVersion: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface RecordedEvent extends NewEvent {
  streamId: string;
  /** 0-based revision of the event within its stream */
  revision: bigint;
  position: Position;
  recordedAt: Date;
}

/** no_stream: the stream must not exist; any: no check; bigint: the stream's current revision. */
export type ExpectedRevision = 'no_stream' | 'any' | bigint;

export interface AppendResult {
  /** revision of the last appended event */
  nextRevision: bigint;
  position: Position;
  /**
   * Every event was in the stream already: nothing was written. Told by the PostgreSQL
   * adapter; EventStoreDB's client does not say, so there it is never set.
   */
  duplicate?: true;
}

export class WrongExpectedRevisionError extends Error {
  override name = 'WrongExpectedRevisionError';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

export interface ReadAllOptions {
  /** exclusive */
  after: Position;
  limit: number;
  /**
   * The types the reader will look into. Events of other types still come (positions
   * and order are whole) but may come without their data, which spares moving large
   * payloads to readers that skip them.
   */
  dataOf?: string[];
}

export interface Subscription {
  /** resolves once the subscription loop has ended */
  stop(): Promise<void>;
}

export interface SubscribeOptions {
  /** exclusive; START for everything */
  from: Position;
  onError?: (err: unknown) => void;
}

export interface EventStore {
  readonly kind: 'postgres' | 'eventstoredb';
  /**
   * Appends atomically. Appending events whose ids are all already in the stream is a
   * no-op that succeeds (idempotent retries), whatever the expected revision.
   */
  append(
    streamId: string,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult>;
  /**
   * One event at the end of each of many streams (each stream named once), as if each
   * were appended with `any`; an event whose id its stream holds already is skipped. On
   * PostgreSQL all in one transaction; EventStoreDB has no multi-stream write, so there
   * each stream's append is its own (all are tried; the first failure is thrown).
   */
  appendEach(appends: { streamId: string; event: NewEvent }[]): Promise<void>;
  /**
   * The stream's events in order, from revision `from` on (the whole stream without it);
   * [] when it does not exist or has nothing from there.
   */
  readStream(streamId: string, from?: bigint): Promise<RecordedEvent[]>;
  /** A page of all events after a position, in the global order. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Every event after `from`, once each, in the global order, until stopped. */
  subscribeAll(
    options: SubscribeOptions,
    handler: (event: RecordedEvent) => Promise<void>,
  ): Subscription;
  /** Position of the newest event that a reader of all events can see now. */
  headPosition(): Promise<Position>;
  /** How many events lie after a position, counting at most `cap` (for lag reports). */
  countAfter(position: Position, cap: number): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

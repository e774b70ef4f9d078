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
  /** the W3C trace context of the command that appended it, when tracing is on */
  traceparent?: string;
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

/** Where an event read as text keeps its stored JSON text and what was parsed of it. */
const TEXTS = Symbol('stored JSON text');
interface Texts {
  dataText: string | undefined;
  metadataText: string | undefined;
  data: Record<string, unknown> | undefined;
  metadata: EventMetadata | undefined;
}
type TextEvent = RecordedEvent & { [TEXTS]: Texts };

/*
 * Own, enumerable accessors (so a copy made by spreading an event has its data), but the
 * same two functions for every event: an object literal with getters makes four closures
 * an event, which made reading a page of the log cost three times as much.
 */
const lazyJson: PropertyDescriptorMap = {
  data: {
    enumerable: true,
    get(this: TextEvent) {
      const t = this[TEXTS];
      t.data ??= JSON.parse(t.dataText!) as Record<string, unknown>;
      return t.data;
    },
    set(this: TextEvent, value: Record<string, unknown>) {
      this[TEXTS].data = value;
      this[TEXTS].dataText = undefined;
    },
  },
  metadata: {
    enumerable: true,
    get(this: TextEvent) {
      const t = this[TEXTS];
      t.metadata ??= JSON.parse(t.metadataText!) as EventMetadata;
      return t.metadata;
    },
    set(this: TextEvent, value: EventMetadata) {
      this[TEXTS].metadata = value;
      this[TEXTS].metadataText = undefined;
    },
  },
};

/**
 * An event whose data and metadata are parsed from their stored JSON text when first
 * read: a reader that never looks into them (a projection, for the types it does not
 * handle) pays nothing, each reader of one page gets objects of its own, and the text
 * stays at hand as stored (`storedJson`) for the audit tree, whose leaves hash it.
 */
export function eventFromJsonText(
  event: Omit<RecordedEvent, 'data' | 'metadata'>,
  dataText: string,
  metadataText: string,
): RecordedEvent {
  const e = {
    id: event.id,
    type: event.type,
    schemaVersion: event.schemaVersion,
    streamId: event.streamId,
    revision: event.revision,
    position: event.position,
    recordedAt: event.recordedAt,
  };
  const texts: Texts = { dataText, metadataText, data: undefined, metadata: undefined };
  Object.defineProperty(e, TEXTS, { value: texts });
  return Object.defineProperties(e, lazyJson) as RecordedEvent;
}

/**
 * An event's data or metadata as JSON text: as stored when read so, else as the service writes it.
 */
export const storedJson = (e: RecordedEvent, field: 'data' | 'metadata'): string =>
  (field === 'data'
    ? (e as Partial<TextEvent>)[TEXTS]?.dataText
    : (e as Partial<TextEvent>)[TEXTS]?.metadataText) ?? JSON.stringify(e[field]);

/** An event's seven fields as the store keeps their text, in an audit leaf's order (leaf.ts). */
export type StoredFields = readonly [
  stream: string,
  revision: string,
  id: string,
  type: string,
  schemaVersion: string,
  data: string,
  metadata: string,
];

/** Where an event read as a view over its stored row (ReadAllOptions.views) has its fields. */
export const STORED = Symbol('fields as stored');

/**
 * An event's fields as stored: as read when read as a view or as text, else as the service writes
 * them.
 */
export function storedFields(e: RecordedEvent): StoredFields {
  const view = (e as { [STORED]?: StoredFields })[STORED];
  if (view) return view;
  return [
    e.streamId,
    e.revision.toString(),
    e.id,
    e.type,
    String(e.schemaVersion),
    storedJson(e, 'data'),
    storedJson(e, 'metadata'),
  ];
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
  /**
   * Events as views over the rows as stored, every field read when first asked for: for
   * a reader of every event that looks at few of their fields (the audit tree hashes
   * them as stored: `storedFields`). A copy made by spreading one has none of its
   * fields. Stores that keep no such rows give ordinary events.
   */
  views?: boolean;
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

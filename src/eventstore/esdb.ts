import {
  ANY,
  type AppendExpectedRevision,
  BACKWARDS,
  END,
  START as ESDB_START,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  type JSONRecordedEvent,
  jsonEvent,
  NO_STREAM,
  type ResolvedEvent,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { traced } from '../telemetry/tracing.ts';
import {
  type AppendResult,
  comparePositions,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type RecordedEvent,
  START,
  type SubscribeOptions,
  type Subscription,
  WrongExpectedRevisionError,
} from './port.ts';

/** The schema version travels in the event's metadata; EventStoreDB has no field for it. */
const VERSION_KEY = '$schemaVersion';

type Meta = Record<string, unknown>;

function toRecorded(resolved: ResolvedEvent): RecordedEvent | undefined {
  const e = resolved.event as JSONRecordedEvent | undefined;
  if (!e || e.type.startsWith('$') || !e.isJson) return undefined;
  const { [VERSION_KEY]: version, ...metadata } = (e.metadata ?? {}) as Meta;
  const pos = e.position ?? resolved.commitPosition;
  const position: Position =
    typeof pos === 'bigint'
      ? { commit: pos, prepare: pos }
      : pos
        ? { commit: pos.commit, prepare: pos.prepare }
        : START;
  return {
    id: e.id,
    streamId: e.streamId,
    revision: e.revision,
    type: e.type,
    schemaVersion: typeof version === 'number' ? version : 1,
    data: e.data as Record<string, unknown>,
    metadata,
    position,
    recordedAt: e.created,
  };
}

function toExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  return expected;
}

export class EsdbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly client: EventStoreDBClient;

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  async append(
    streamId: string,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(
        streamId,
        // the trace that appends, in the metadata (the PostgreSQL adapter does the same)
        traced(events).map((e) =>
          jsonEvent({
            id: e.id,
            type: e.type,
            data: e.data,
            metadata: { ...e.metadata, [VERSION_KEY]: e.schemaVersion },
          }),
        ),
        { expectedRevision: toExpected(expectedRevision) },
      );
      const p = result.position;
      return {
        nextRevision: result.nextExpectedRevision,
        position: p ? { commit: p.commit, prepare: p.prepare } : START,
      };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = err.actualVersion;
        throw new WrongExpectedRevisionError(
          streamId,
          expectedRevision,
          typeof actual === 'bigint' ? actual : 'no_stream',
        );
      }
      throw err;
    }
  }

  async appendEach(appends: { streamId: string; event: NewEvent }[]): Promise<void> {
    if (new Set(appends.map((a) => a.streamId)).size !== appends.length)
      throw new Error('appendEach names each stream once');
    const results = await Promise.allSettled(
      appends.map((a) => this.append(a.streamId, [a.event], 'any')),
    );
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async readStream(streamId: string, from = 0n): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, {
        direction: FORWARDS,
        fromRevision: from === 0n ? ESDB_START : from,
      })) {
        const e = toRecorded(resolved);
        if (e) out.push(e);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  async readAll({ after, limit, dataOf }: ReadAllOptions): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    const fromPosition =
      after.commit < 0n ? ESDB_START : { commit: after.commit, prepare: after.prepare };
    // fromPosition is inclusive in EventStoreDB; the port's `after` is exclusive.
    for await (const resolved of this.client.readAll({
      direction: FORWARDS,
      fromPosition,
      maxCount: limit + 1,
    })) {
      const e = toRecorded(resolved);
      if (e && comparePositions(e.position, after) > 0) {
        out.push(dataOf && !dataOf.includes(e.type) ? { ...e, data: {} } : e);
      }
      if (out.length === limit) break;
    }
    return out;
  }

  subscribeAll(
    options: SubscribeOptions,
    handler: (event: RecordedEvent) => Promise<void>,
  ): Subscription {
    const fromPosition =
      options.from.commit < 0n
        ? ESDB_START
        : { commit: options.from.commit, prepare: options.from.prepare };
    const sub = this.client.subscribeToAll({ fromPosition, filter: excludeSystemEvents() });
    const loop = (async () => {
      try {
        for await (const resolved of sub) {
          const e = toRecorded(resolved);
          if (e && comparePositions(e.position, options.from) > 0) await handler(e);
        }
      } catch (err) {
        options.onError?.(err);
      }
    })();
    return {
      async stop() {
        await sub.unsubscribe();
        await loop;
      },
    };
  }

  async headPosition(): Promise<Position> {
    for await (const resolved of this.client.readAll({
      direction: BACKWARDS,
      fromPosition: END,
      maxCount: 50,
    })) {
      const e = toRecorded(resolved);
      if (e) return e.position;
    }
    return START;
  }

  async countAfter(position: Position, cap: number): Promise<number> {
    return (await this.readAll({ after: position, limit: cap })).length;
  }

  async ping(): Promise<void> {
    for await (const _ of this.client.readAll({
      direction: BACKWARDS,
      fromPosition: END,
      maxCount: 1,
    })) {
      break;
    }
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

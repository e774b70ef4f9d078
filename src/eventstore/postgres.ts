import { createHash } from 'node:crypto';
import pg from 'pg';
import { STREAM_CHANNEL } from '../db/change-feed.ts';
import { inChildSpan, traced } from '../telemetry/tracing.ts';
import {
  type AppendResult,
  comparePositions,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  eventFromJsonText,
  type NewEvent,
  type Position,
  type ReadAllOptions,
  type RecordedEvent,
  START,
  STORED,
  type StoredFields,
  type SubscribeOptions,
  type Subscription,
  WrongExpectedRevisionError,
} from './port.ts';
import { pollingSubscription, WakeSignal } from './subscription.ts';

/*
 * Global order without skipped events.
 *
 * A sequence value is taken when a row is inserted, but the row becomes visible when
 * its transaction commits, so a reader can see position 11 while 10 is still in
 * flight; a subscriber checkpointed at 11 would skip 10 for ever. This adapter stores
 * the appending transaction's id (xid8) beside the sequence value and orders all
 * events by (transaction id, sequence). A reader only returns events whose transaction
 * id is below pg_snapshot_xmin(pg_current_snapshot()): every transaction below that
 * horizon has ended, so no event can ever appear again before anything returned.
 * Appends stay concurrent (no global lock), which keeps group commit working.
 * The cost: one long-running transaction anywhere in the cluster holds readers back
 * (they lag, they never skip).
 *
 * Payloads are `json`, not `jsonb`: an event is stored as the text it was written as
 * (nothing reorders or normalises it), and reading it back is a copy, where jsonb would
 * rebuild the text each time (measurable on 3 MB designs, read by every activity).
 *
 * Appends to streams that other processes cache (given at migration) notify the stream
 * id on STREAM_CHANNEL at commit, from a trigger, so every writer does. Only those: a
 * notifying transaction holds PostgreSQL's notification lock through its commit, WAL
 * flush included, which serialises concurrent commits (measured: 8 appenders fell from
 * 0.63 to 0.31 of plain INSERTs when every append notified).
 */
export const EVENT_STORE_SCHEMA = `
CREATE TABLE IF NOT EXISTS es_events (
  seq            bigserial PRIMARY KEY,
  tx_id          xid8 NOT NULL DEFAULT pg_current_xact_id(),
  event_id       uuid NOT NULL UNIQUE,
  stream_id      text NOT NULL,
  revision       bigint NOT NULL,
  type           text NOT NULL,
  schema_version integer NOT NULL,
  data           json NOT NULL,
  metadata       json NOT NULL,
  recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT es_events_stream_revision UNIQUE (stream_id, revision)
);
CREATE INDEX IF NOT EXISTS es_events_global_order ON es_events (tx_id, seq);
`;

/*
 * Optimistic concurrency without a separate streams table: an append is one INSERT
 * (one round trip, its own transaction) of the revisions it expects to be next, and the
 * unique (stream_id, revision) constraint is the check. no_stream writes revision 0,
 * which exists in any existing stream; an exact revision r writes r+1 and also requires
 * r to exist, so "r+1 free and r present" means the stream is at r. Two racing appends
 * at the same revision cannot both insert it: the loser gets a unique violation.
 */
const appendSql = (count: number) => {
  // one VALUES row per event: plain parameters are cheaper for client and server than
  // arrays to unnest; statement texts are cached by count
  const rows = Array.from({ length: count }, (_, k) => {
    const b = 3 + k * 5;
    return `($${b}::uuid, $2::bigint + ${k}, $${b + 1}, $${b + 2}::int, $${b + 3}::json, $${b + 4}::json)`;
  });
  return `
INSERT INTO es_events (event_id, stream_id, revision, type, schema_version, data, metadata)
SELECT e.id, $1, e.revision, e.type, e.version, e.data, e.metadata
FROM (VALUES ${rows.join(', ')}) AS e(id, revision, type, version, data, metadata)
WHERE $2::bigint = 0
   OR EXISTS (SELECT 1 FROM es_events WHERE stream_id = $1 AND revision = $2::bigint - 1)
RETURNING seq, tx_id::text AS tx_text`;
};
const appendSqlCache = new Map<number, string>();
const APPEND_SQL = (count: number) => {
  let sql = appendSqlCache.get(count);
  if (!sql) {
    sql = appendSql(count);
    appendSqlCache.set(count, sql);
  }
  return sql;
};

/**
 * The trigger's name carries its prefixes, so a process started with the same ones
 * leaves it alone (replacing a trigger locks the table) and one with others replaces it.
 */
function notifyTriggerSql(prefixes: string[]): string {
  const sorted = [...new Set(prefixes)].sort();
  const name = `es_events_notify_${createHash('sha256').update(sorted.join('\n')).digest('hex').slice(0, 12)}`;
  const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
  const when = sorted.map((p) => `starts_with(NEW.stream_id, ${quote(p)})`).join(' OR ');
  return `
DO $$
DECLARE old record;
BEGIN
  IF EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '${name}') THEN RETURN; END IF;
  FOR old IN SELECT tgname FROM pg_trigger WHERE tgname LIKE 'es\\_events\\_notify\\_%' LOOP
    EXECUTE format('DROP TRIGGER %I ON es_events', old.tgname);
  END LOOP;
  ${
    sorted.length === 0
      ? ''
      : `CREATE OR REPLACE FUNCTION es_notify_stream() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    PERFORM pg_notify('${STREAM_CHANNEL}', NEW.stream_id);
    RETURN NULL;
  END $fn$;
  CREATE TRIGGER ${name} AFTER INSERT ON es_events FOR EACH ROW
    WHEN (${when}) EXECUTE FUNCTION es_notify_stream();`
  }
END $$;`;
}

export const MAX_EVENTS_PER_APPEND = 10_000;

/** streams per statement of appendEach (6 parameters each) */
const MAX_EACH = 5_000;

/**
 * appendEach as one statement: each event at its stream's next revision, skipped when
 * its id is recorded already (a repeated attempt).
 */
const appendEachSql = (count: number) => {
  const rows = Array.from({ length: count }, (_, k) => {
    const b = 1 + k * 6;
    return `($${b}::uuid, $${b + 1}, $${b + 2}, $${b + 3}::int, $${b + 4}::json, $${b + 5}::json)`;
  });
  return `
INSERT INTO es_events (event_id, stream_id, revision, type, schema_version, data, metadata)
SELECT e.id, e.stream,
  COALESCE((SELECT max(x.revision) FROM es_events x WHERE x.stream_id = e.stream), -1) + 1,
  e.type, e.version, e.data, e.metadata
FROM (VALUES ${rows.join(', ')}) AS e(id, stream, type, version, data, metadata)
WHERE NOT EXISTS (SELECT 1 FROM es_events d WHERE d.event_id = e.id)`;
};
const eachParams = (a: { streamId: string; event: NewEvent }) => [
  a.event.id,
  a.streamId,
  a.event.type,
  a.event.schemaVersion,
  JSON.stringify(a.event.data),
  JSON.stringify(a.event.metadata),
];

const UNIQUE_VIOLATION = '23505';
const violated = (err: unknown, constraint: string) =>
  (err as { code?: string }).code === UNIQUE_VIOLATION &&
  (err as { constraint?: string }).constraint === constraint;

const SELECT_EVENT = `SELECT seq, tx_id::text AS tx_text, event_id, stream_id, revision, type,
  schema_version, data, metadata, recorded_at FROM es_events`;

interface EventRow {
  seq: string;
  tx_text: string;
  event_id: string;
  stream_id: string;
  revision: string;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

const toRecorded = (row: EventRow): RecordedEvent => ({
  id: row.event_id,
  streamId: row.stream_id,
  revision: BigInt(row.revision),
  type: row.type,
  schemaVersion: row.schema_version,
  position: { commit: BigInt(row.tx_text), prepare: BigInt(row.seq) },
  recordedAt: row.recorded_at,
  data: row.data,
  metadata: row.metadata,
});

/**
 * A row of a page of the log as PostgreSQL's text, nothing parsed (PAGE_COLUMNS): the
 * seven fields of an event as stored (port.ts StoredFields), then its position and time.
 */
type PageRow = [...StoredFields, seq: string, tx: string, recordedAt: string];
const PAGE_COLUMNS = `stream_id, revision::text, event_id::text, type, schema_version::text`;
const [STREAM, REVISION, ID, TYPE, VERSION, DATA, METADATA, SEQ, TX, RECORDED_AT] = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
] as const;
/** pages come as arrays of text: pg's parsers would make objects most readers never look at */
const pageQuery = {
  rowMode: 'array',
  types: { getTypeParser: () => (text: string) => text },
} as const;
const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (
  text: string,
) => Date;

/**
 * The event of a page's row at `position`, with `dataText` as its data (parsed when read: port.ts).
 */
const fromText = (row: PageRow, position: Position, dataText: string): RecordedEvent =>
  eventFromJsonText(
    {
      id: row[ID],
      streamId: row[STREAM],
      revision: BigInt(row[REVISION]),
      type: row[TYPE],
      schemaVersion: Number(row[VERSION]),
      position,
      recordedAt: parseTimestamp(row[RECORDED_AT]),
    },
    dataText,
    row[METADATA],
  );

/**
 * An event of a page as a view over its row (ReadAllOptions.views): a field is parsed
 * when first read, so a reader of every event that hashes them as stored (the audit
 * tree) makes no object an event but this one.
 */
class RowEvent implements RecordedEvent {
  #data: Record<string, unknown> | undefined;
  #metadata: EventMetadata | undefined;
  constructor(
    private readonly row: PageRow,
    readonly position: Position,
  ) {}
  get id() {
    return this.row[ID];
  }
  get streamId() {
    return this.row[STREAM];
  }
  get revision() {
    return BigInt(this.row[REVISION]);
  }
  get type() {
    return this.row[TYPE];
  }
  get schemaVersion() {
    return Number(this.row[VERSION]);
  }
  get recordedAt() {
    return parseTimestamp(this.row[RECORDED_AT]);
  }
  get data() {
    this.#data ??= JSON.parse(this.row[DATA]) as Record<string, unknown>;
    return this.#data;
  }
  get metadata() {
    this.#metadata ??= JSON.parse(this.row[METADATA]) as EventMetadata;
    return this.#metadata;
  }
  get [STORED](): StoredFields {
    const r = this.row;
    return [r[STREAM], r[REVISION], r[ID], r[TYPE], r[VERSION], r[DATA], r[METADATA]];
  }
  /** written out (a parked event, a log line) with its fields, as an ordinary event is */
  toJSON() {
    const { id, streamId, revision, type, schemaVersion, position, recordedAt, data, metadata } =
      this;
    return { id, streamId, revision, type, schemaVersion, position, recordedAt, data, metadata };
  }
}

interface Settle<T> {
  resolve(value: T): void;
  reject(err: unknown): void;
}

/** A reader's request for a page of the log, waiting for the turn's query. */
interface PageRequest {
  after: Position;
  limit: number;
  dataOf: string[] | undefined;
  views: boolean | undefined;
  settle: Settle<RecordedEvent[]>;
}

/** xid8 has no negative values; START maps to the lowest one. */
const xid = (p: Position) => (p.commit < 0n ? '0' : p.commit.toString());

/** A position as the wake signal's head key, and back. */
const headKey = (p: Position) => `${p.commit}/${p.prepare}`;
const headOf = (key: string): Position => {
  const [commit, prepare] = key.split('/') as [string, string];
  return { commit: BigInt(commit), prepare: BigInt(prepare) };
};

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  /**
   * Woken by local appends (by type), so local subscribers do not wait for their poll,
   * and, probed, by any movement of the visible head
   */
  readonly appended = new WakeSignal(async (last) => {
    const { head, types } = await this.headAndTypesSince(
      last === undefined ? undefined : headOf(last),
    );
    const key = headKey(head);
    if (last === undefined || last === key) return { head: key };
    return { head: key, types };
  });

  /**
   * The visible head and the types of the events after `since` up to it (undefined when
   * there are very many), in one query: the wake signal's probe, several times a second.
   */
  private async headAndTypesSince(
    since: Position | undefined,
  ): Promise<{ head: Position; types: string[] | undefined }> {
    const cap = 5000;
    const r = await this.pool.query<{
      seq: string;
      tx_text: string;
      types: string[] | null;
      n: string | null;
    }>(
      `SELECT h.seq, h.tx_id::text AS tx_text, t.types, t.n
       FROM (SELECT seq, tx_id FROM es_events
             WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
             ORDER BY tx_id DESC, seq DESC LIMIT 1) h
       LEFT JOIN LATERAL (
         SELECT array_agg(DISTINCT type) AS types, count(*) AS n FROM (
           SELECT type FROM es_events
           WHERE $1::xid8 IS NOT NULL AND (tx_id, seq) > ($1::xid8, $2::bigint)
             AND (tx_id, seq) <= (h.tx_id, h.seq)
           LIMIT $3) x) t ON true`,
      [since ? xid(since) : null, since ? since.prepare.toString() : null, cap + 1],
    );
    const row = r.rows[0];
    if (!row) return { head: START, types: [] };
    return {
      head: { commit: BigInt(row.tx_text), prepare: BigInt(row.seq) },
      types: Number(row.n ?? 0) > cap ? undefined : (row.types ?? []),
    };
  }

  constructor(
    private readonly pool: pg.Pool,
    /** told of each append once it is committed, before append returns */
    private readonly onAppended: (streamId: string) => void = () => {},
  ) {}

  /** Creates the schema; appends to streams starting with one of `notifyPrefixes` will notify. */
  static async migrate(db: Pick<pg.Pool, 'query'>, notifyPrefixes: string[] = []): Promise<void> {
    await db.query(EVENT_STORE_SCHEMA);
    await db.query(notifyTriggerSql(notifyPrefixes));
  }

  /** In a span of the trace that appends (if any), which the events' metadata name. */
  append(
    streamId: string,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult> {
    return inChildSpan('append', { 'stream.id': streamId, 'events.count': events.length }, () =>
      this.appendNow(streamId, traced(events), expectedRevision),
    );
  }

  private async appendNow(
    streamId: string,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    // 5 parameters an event, and PostgreSQL takes at most 65535 in one statement
    if (events.length > MAX_EVENTS_PER_APPEND) {
      throw new Error(`append takes at most ${MAX_EVENTS_PER_APPEND} events at once`);
    }
    for (let attempt = 0; ; attempt++) {
      let first: bigint;
      if (expectedRevision === 'no_stream') first = 0n;
      else if (expectedRevision === 'any') {
        const current = await this.currentRevision(streamId);
        first = current === 'no_stream' ? 0n : current + 1n;
      } else first = expectedRevision + 1n;
      let rows: { seq: string; tx_text: string }[];
      try {
        rows = (
          await this.pool.query<{ seq: string; tx_text: string }>(APPEND_SQL(events.length), [
            streamId,
            first.toString(),
            ...events.flatMap((e) => [
              e.id,
              e.type,
              e.schemaVersion,
              JSON.stringify(e.data),
              JSON.stringify(e.metadata),
            ]),
          ])
        ).rows;
      } catch (err) {
        const idTaken = violated(err, 'es_events_event_id_key');
        const revisionTaken = violated(err, 'es_events_stream_revision');
        if (!idTaken && !revisionTaken) throw err;
        // the same events again (a retried activity, a replayed request) succeed, as in
        // EventStoreDB, when every id is already in this stream; which constraint fires
        // first is up to the server, so both are checked
        const done = await this.alreadyAppended(streamId, events);
        if (done) return { ...done, duplicate: true };
        if (idTaken) throw err;
        // `any` only lost a race for the next revision: take the new one
        if (expectedRevision === 'any' && attempt < 20) continue;
        rows = [];
      }
      if (rows.length === 0) {
        throw new WrongExpectedRevisionError(
          streamId,
          expectedRevision,
          await this.currentRevision(streamId),
        );
      }
      const last = rows.reduce((x, y) => (BigInt(x.seq) > BigInt(y.seq) ? x : y));
      this.onAppended(streamId);
      this.appended.notify(events.map((e) => e.type));
      return {
        nextRevision: first + BigInt(events.length - 1),
        position: { commit: BigInt(last.tx_text), prepare: BigInt(last.seq) },
      };
    }
  }

  /**
   * A page that reached the visible end, read from at or before the head the wake signal
   * knows, shows the head as a probe would: readers of the types past that head are told,
   * and the probe's next query is spared. Events appended here count too: their readers
   * were told at the append, but may have read before the events became visible.
   */
  private sawHead(from: Position, rows: PageRow[], positions: Position[]): void {
    const known = this.appended.head;
    if (known === undefined) return;
    const head = headOf(known);
    if (comparePositions(from, head) > 0) return; // what lies between is unseen
    const last = positions.at(-1);
    if (!last || comparePositions(last, head) <= 0) {
      this.appended.observed(known, []);
      return;
    }
    const types = new Set<string>();
    for (const [i, row] of rows.entries())
      if (comparePositions(positions[i]!, head) > 0) types.add(row[TYPE]);
    this.appended.observed(headKey(last), [...types]);
  }

  appendEach(appends: { streamId: string; event: NewEvent }[]): Promise<void> {
    return inChildSpan('append', { 'streams.count': appends.length }, () =>
      this.appendEachNow(
        appends.map((a) => ({ streamId: a.streamId, event: traced([a.event])[0]! })),
      ),
    );
  }

  private async appendEachNow(appends: { streamId: string; event: NewEvent }[]): Promise<void> {
    if (appends.length === 0) return;
    if (new Set(appends.map((a) => a.streamId)).size !== appends.length)
      throw new Error('appendEach names each stream once');
    for (let from = 0; from < appends.length; from += MAX_EACH) {
      const chunk = appends.slice(from, from + MAX_EACH);
      for (let attempt = 0; ; attempt++) {
        try {
          await this.pool.query(appendEachSql(chunk.length), chunk.flatMap(eachParams));
          break;
        } catch (err) {
          // another writer took a stream's next revision meanwhile: read them again
          if (!violated(err, 'es_events_stream_revision') || attempt >= 20) throw err;
        }
      }
      for (const a of chunk) this.onAppended(a.streamId);
      this.appended.notify([...new Set(chunk.map((a) => a.event.type))]);
    }
  }

  private async alreadyAppended(
    streamId: string,
    events: NewEvent[],
  ): Promise<AppendResult | undefined> {
    const r = await this.pool.query<{ seq: string; tx_text: string; revision: string }>(
      `SELECT seq, tx_id::text AS tx_text, revision FROM es_events
       WHERE stream_id = $1 AND event_id = ANY($2::uuid[]) ORDER BY revision`,
      [streamId, events.map((e) => e.id)],
    );
    if (r.rows.length !== events.length) return undefined;
    const last = r.rows[r.rows.length - 1]!;
    return {
      nextRevision: BigInt(last.revision),
      position: { commit: BigInt(last.tx_text), prepare: BigInt(last.seq) },
    };
  }

  private async currentRevision(streamId: string): Promise<bigint | 'no_stream'> {
    const r = await this.pool.query<{ revision: string | null }>(
      'SELECT max(revision) AS revision FROM es_events WHERE stream_id = $1',
      [streamId],
    );
    const revision = r.rows[0]?.revision;
    return revision == null ? 'no_stream' : BigInt(revision);
  }

  /** readStream requests of this turn of the event loop, sent together after it */
  private readonly streamReads: { streamId: string; from: bigint; settle: Settle<EventRow[]> }[] =
    [];

  /**
   * Reads made in the same turn of the event loop (a command reading the streams it
   * decides on at once, say) go to PostgreSQL as one query, read in one snapshot.
   */
  readStream(streamId: string, from = 0n): Promise<RecordedEvent[]> {
    return new Promise<EventRow[]>((resolve, reject) => {
      if (this.streamReads.length === 0) setImmediate(() => void this.sendStreamReads());
      this.streamReads.push({ streamId, from, settle: { resolve, reject } });
    }).then((rows) => rows.map(toRecorded));
  }

  private async sendStreamReads(): Promise<void> {
    const reads = this.streamReads.splice(0);
    try {
      if (reads.length === 1) {
        const [{ streamId, from, settle }] = reads as [(typeof reads)[0]];
        const r = await this.pool.query<EventRow>({
          name: 'es-read-stream-from',
          text: `${SELECT_EVENT} WHERE stream_id = $1 AND revision >= $2 ORDER BY revision`,
          values: [streamId, from.toString()],
        });
        return settle.resolve(r.rows);
      }
      const r = await this.pool.query<EventRow & { i: string }>({
        name: 'es-read-streams-from',
        text: `SELECT r.i, e.seq, e.tx_id::text AS tx_text, e.event_id, e.stream_id, e.revision,
                 e.type, e.schema_version, e.data, e.metadata, e.recorded_at
               FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS r(stream_id, from_rev, i)
               JOIN es_events e ON e.stream_id = r.stream_id AND e.revision >= r.from_rev
               ORDER BY r.i, e.revision`,
        values: [reads.map((x) => x.streamId), reads.map((x) => x.from.toString())],
      });
      const rows = reads.map((): EventRow[] => []);
      for (const row of r.rows) rows[Number(row.i) - 1]!.push(row);
      for (const [i, x] of reads.entries()) x.settle.resolve(rows[i]!);
    } catch (err) {
      for (const x of reads) x.settle.reject(err);
    }
  }

  /** readAll requests of this turn of the event loop, sent together after it */
  private readonly pageRequests: PageRequest[] = [];

  /**
   * Every subscriber of a process (projections, reactors) is woken by appends and reads
   * a page from where it stands. The requests made in one turn of the event loop go to
   * PostgreSQL as one query, sent after the last of them: the events after the earliest
   * position, each with its data when a reader at or before it looks into its type. Each
   * reader takes the events after its own position; the query's page reaching the
   * visible end (fewer rows than asked) means each has all it would have read alone.
   * When it did not, a reader left short is asked again (with the others left short) in
   * the next turn. Each caller gets events of its own (data copied for all but the first).
   */
  readAll({ after, limit, dataOf, views }: ReadAllOptions): Promise<RecordedEvent[]> {
    return new Promise<RecordedEvent[]>((resolve, reject) => {
      this.requestPage({ after, limit, dataOf, views, settle: { resolve, reject } });
    });
  }

  private requestPage(request: PageRequest): void {
    if (this.pageRequests.length === 0) setImmediate(() => void this.sendPageRequests());
    this.pageRequests.push(request);
  }

  private async sendPageRequests(): Promise<void> {
    const requests = this.pageRequests.splice(0);
    let rows: PageRow[];
    const from = requests.reduce(
      (min, q) => (comparePositions(q.after, min) < 0 ? q.after : min),
      requests[0]!.after,
    );
    const limit = Math.max(...requests.map((q) => q.limit));
    try {
      rows =
        requests.length === 1
          ? await this.readPage(from, limit, requests[0]!.dataOf ?? null)
          : await this.readPageFor(from, limit, requests);
    } catch (err) {
      for (const q of requests) q.settle.reject(err);
      return;
    }
    const complete = rows.length < limit;
    const positions = rows.map((r) => ({ commit: BigInt(r[TX]), prepare: BigInt(r[SEQ]) }));
    if (complete) this.sawHead(from, rows, positions);
    for (const q of requests) {
      // a reader gets the data of the types it looks into, parsed when it reads them (so
      // each reader has objects of its own); the others' rows come without data
      const wanted = q.dataOf ? new Set(q.dataOf) : undefined;
      let i = 0;
      while (i < rows.length && comparePositions(positions[i]!, q.after) <= 0) i++;
      const end = Math.min(rows.length, i + q.limit);
      if (end - i < q.limit && !complete) {
        this.requestPage(q);
        continue;
      }
      const page: RecordedEvent[] = [];
      for (; i < end; i++) {
        const row = rows[i]!;
        page.push(
          q.views
            ? new RowEvent(row, positions[i]!)
            : fromText(row, positions[i]!, wanted && !wanted.has(row[TYPE]) ? '{}' : row[DATA]),
        );
      }
      q.settle.resolve(page);
    }
  }

  /**
   * A page for several readers: an event's data when a reader after whose position it lies looks
   * into its type.
   */
  private async readPageFor(
    from: Position,
    limit: number,
    requests: PageRequest[],
  ): Promise<PageRow[]> {
    const r = await this.pool.query<PageRow>({
      ...pageQuery,
      text: `SELECT ${PAGE_COLUMNS},
         CASE WHEN EXISTS (
           SELECT 1 FROM unnest($4::xid8[], $5::bigint[], $6::text[]) AS c(tx, seq, types)
           WHERE (e.tx_id, e.seq) > (c.tx, c.seq)
             AND (c.types IS NULL OR e.type = ANY(string_to_array(c.types, ',')))
         ) THEN data::text ELSE '{}' END,
         metadata::text, seq, tx_id, recorded_at
       FROM es_events e
       WHERE (tx_id, seq) > ($1::xid8, $2::bigint)
         AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY tx_id, seq LIMIT $3`,
      values: [
        xid(from),
        from.prepare.toString(),
        limit,
        requests.map((q) => xid(q.after)),
        requests.map((q) => q.after.prepare.toString()),
        requests.map((q) => (q.dataOf ? q.dataOf.join(',') : null)),
      ],
    });
    return r.rows;
  }

  private async readPage(
    after: Position,
    limit: number,
    dataOf: string[] | null,
  ): Promise<PageRow[]> {
    const r = await this.pool.query<PageRow>({
      ...pageQuery,
      text: `SELECT ${PAGE_COLUMNS},
         CASE WHEN $4::text[] IS NULL OR type = ANY($4::text[]) THEN data::text ELSE '{}' END,
         metadata::text, seq, tx_id, recorded_at
       FROM es_events
       WHERE (tx_id, seq) > ($1::xid8, $2::bigint)
         AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY tx_id, seq LIMIT $3`,
      values: [xid(after), after.prepare.toString(), limit, dataOf],
    });
    return r.rows;
  }

  subscribeAll(
    options: SubscribeOptions,
    handler: (event: RecordedEvent) => Promise<void>,
  ): Subscription {
    return pollingSubscription(this, { ...options, wakeups: this.appended }, handler);
  }

  async headPosition(): Promise<Position> {
    const r = await this.pool.query<{ seq: string; tx_text: string }>(
      `SELECT seq, tx_id::text AS tx_text FROM es_events
       WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY tx_id DESC, seq DESC LIMIT 1`,
    );
    const row = r.rows[0];
    return row ? { commit: BigInt(row.tx_text), prepare: BigInt(row.seq) } : START;
  }

  async countAfter(position: Position, cap: number): Promise<number> {
    const r = await this.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM es_events
       WHERE (tx_id, seq) > ($1::xid8, $2::bigint) LIMIT $3) t`,
      [xid(position), position.prepare.toString(), cap],
    );
    return Number(r.rows[0]!.n);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    this.appended.notify();
  }
}

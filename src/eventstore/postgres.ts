import type pg from 'pg';
import {
  type AppendResult,
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
 */
export const EVENT_STORE_SCHEMA = `
CREATE TABLE IF NOT EXISTS es_streams (
  stream_id text PRIMARY KEY,
  revision  bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS es_events (
  seq            bigserial PRIMARY KEY,
  tx_id          xid8 NOT NULL DEFAULT pg_current_xact_id(),
  event_id       uuid NOT NULL UNIQUE,
  stream_id      text NOT NULL,
  revision       bigint NOT NULL,
  type           text NOT NULL,
  schema_version integer NOT NULL,
  data           jsonb NOT NULL,
  metadata       jsonb NOT NULL,
  recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (stream_id, revision)
);
CREATE INDEX IF NOT EXISTS es_events_global_order ON es_events (tx_id, seq);
`;

// Each append is one statement (one round trip, its own transaction): the stream row
// is claimed first (insert, update at the expected revision, or upsert), which locks
// it, and the events are inserted only when that claim returned a row.
const INSERT_EVENTS = `
INSERT INTO es_events (event_id, stream_id, revision, type, schema_version, data, metadata)
SELECT e.id, $1, claim.revision - $2 + e.ord, e.type, e.version, e.data::jsonb, e.metadata::jsonb
FROM claim, unnest($3::uuid[], $4::text[], $5::int[], $6::text[], $7::text[])
  WITH ORDINALITY AS e(id, type, version, data, metadata, ord)
RETURNING seq, tx_id::text AS tx_text`;

const APPEND_SQL = {
  no_stream: `WITH claim AS (
    INSERT INTO es_streams (stream_id, revision) VALUES ($1, $2 - 1)
    ON CONFLICT (stream_id) DO NOTHING RETURNING revision) ${INSERT_EVENTS}`,
  any: `WITH claim AS (
    INSERT INTO es_streams AS s (stream_id, revision) VALUES ($1, $2 - 1)
    ON CONFLICT (stream_id) DO UPDATE SET revision = s.revision + $2 RETURNING revision) ${INSERT_EVENTS}`,
  exact: `WITH claim AS (
    UPDATE es_streams SET revision = revision + $2
    WHERE stream_id = $1 AND revision = $8 RETURNING revision) ${INSERT_EVENTS}`,
};

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

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: BigInt(row.revision),
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    position: { commit: BigInt(row.tx_text), prepare: BigInt(row.seq) },
    recordedAt: row.recorded_at,
  };
}

/** xid8 has no negative values; START maps to the lowest one. */
const xid = (p: Position) => (p.commit < 0n ? '0' : p.commit.toString());

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  /** Woken after each local append, so local subscribers do not wait for their poll. */
  readonly appended = new WakeSignal();

  constructor(private readonly pool: pg.Pool) {}

  static async migrate(pool: pg.Pool): Promise<void> {
    await pool.query(EVENT_STORE_SCHEMA);
  }

  async append(
    streamId: string,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const kind = typeof expectedRevision === 'bigint' ? 'exact' : expectedRevision;
    const params: unknown[] = [
      streamId,
      events.length,
      events.map((e) => e.id),
      events.map((e) => e.type),
      events.map((e) => e.schemaVersion),
      events.map((e) => JSON.stringify(e.data)),
      events.map((e) => JSON.stringify(e.metadata)),
    ];
    if (kind === 'exact') params.push((expectedRevision as bigint).toString());
    const res = await this.pool.query<{ seq: string; tx_text: string }>(APPEND_SQL[kind], params);
    if (res.rowCount === 0) {
      throw new WrongExpectedRevisionError(
        streamId,
        expectedRevision,
        await this.currentRevision(streamId),
      );
    }
    const last = res.rows.reduce((a, b) => (BigInt(a.seq) > BigInt(b.seq) ? a : b));
    this.appended.notify();
    const current = await this.currentRevisionAfter(streamId, expectedRevision, events.length);
    return {
      nextRevision: current,
      position: { commit: BigInt(last.tx_text), prepare: BigInt(last.seq) },
    };
  }

  /** The revision after a successful append, derived without another round trip where possible. */
  private async currentRevisionAfter(
    streamId: string,
    expected: ExpectedRevision,
    count: number,
  ): Promise<bigint> {
    if (expected === 'no_stream') return BigInt(count - 1);
    if (typeof expected === 'bigint') return expected + BigInt(count);
    const r = await this.currentRevision(streamId);
    return r === 'no_stream' ? BigInt(count - 1) : r;
  }

  private async currentRevision(streamId: string): Promise<bigint | 'no_stream'> {
    const r = await this.pool.query<{ revision: string }>(
      'SELECT revision FROM es_streams WHERE stream_id = $1',
      [streamId],
    );
    return r.rows[0] ? BigInt(r.rows[0].revision) : 'no_stream';
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    const r = await this.pool.query<EventRow>(
      `${SELECT_EVENT} WHERE stream_id = $1 ORDER BY revision`,
      [streamId],
    );
    return r.rows.map(toRecorded);
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<RecordedEvent[]> {
    const r = await this.pool.query<EventRow>(
      `${SELECT_EVENT}
       WHERE (tx_id, seq) > ($1::xid8, $2::bigint)
         AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY tx_id, seq LIMIT $3`,
      [xid(after), after.prepare.toString(), limit],
    );
    return r.rows.map(toRecorded);
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

import type pg from 'pg';
import type { Position, RecordedEvent } from '../eventstore/port.ts';

/**
 * Events a subscription (projection or reactor) could not take after its retries: kept
 * with the error, so one bad event never stops a read model or a reaction for everyone,
 * and so an operator can see it and retry it after a fix.
 */
export const PARKED_SCHEMA = `
CREATE TABLE IF NOT EXISTS parked_events (
  subscription    text NOT NULL,
  event_id        uuid NOT NULL,
  stream_id       text NOT NULL,
  event_type      text NOT NULL,
  commit_pos      numeric NOT NULL,
  prepare_pos     numeric NOT NULL,
  error           text NOT NULL,
  attempts        integer NOT NULL,
  parked_at       timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription, event_id)
);`;

export interface ParkedEvent {
  subscription: string;
  eventId: string;
  streamId: string;
  type: string;
  position: { commit: string; prepare: string };
  error: string;
  attempts: number;
  parkedAt: string;
  lastAttemptAt: string;
}

/** What is kept of an error: its code and first line, never a stack or a parameter value. */
export function describeError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; name?: unknown };
  const first = String(e?.message ?? err)
    .split('\n')[0]!
    .slice(0, 400);
  const code = typeof e?.code === 'string' ? ` [${e.code}]` : '';
  const name = typeof e?.name === 'string' && e.name !== 'Error' ? `${e.name}: ` : '';
  return `${name}${first}${code}`;
}

export async function park(
  db: Pick<pg.Pool, 'query'>,
  subscription: string,
  event: RecordedEvent,
  error: unknown,
  attempts: number,
): Promise<void> {
  await db.query(
    `INSERT INTO parked_events (subscription, event_id, stream_id, event_type, commit_pos, prepare_pos, error, attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (subscription, event_id) DO UPDATE SET error = EXCLUDED.error,
       attempts = parked_events.attempts + EXCLUDED.attempts, last_attempt_at = now()`,
    [
      subscription,
      event.id,
      event.streamId,
      event.type,
      event.position.commit.toString(),
      event.position.prepare.toString(),
      describeError(error),
      attempts,
    ],
  );
}

interface Row {
  subscription: string;
  event_id: string;
  stream_id: string;
  event_type: string;
  commit_pos: string;
  prepare_pos: string;
  error: string;
  attempts: number;
  parked_at: Date;
  last_attempt_at: Date;
}

const toParked = (r: Row): ParkedEvent => ({
  subscription: r.subscription,
  eventId: r.event_id,
  streamId: r.stream_id,
  type: r.event_type,
  position: { commit: r.commit_pos, prepare: r.prepare_pos },
  error: r.error,
  attempts: r.attempts,
  parkedAt: r.parked_at.toISOString(),
  lastAttemptAt: r.last_attempt_at.toISOString(),
});

/** Parked events in log order, of one subscription or of all; at most `limit`. */
export async function listParked(
  db: Pick<pg.Pool, 'query'>,
  subscription?: string,
  limit = 100,
): Promise<ParkedEvent[]> {
  const r = await db.query<Row>(
    `SELECT * FROM parked_events WHERE $1::text IS NULL OR subscription = $1
     ORDER BY subscription, commit_pos, prepare_pos LIMIT $2`,
    [subscription ?? null, limit],
  );
  return r.rows.map(toParked);
}

export async function countParked(db: Pick<pg.Pool, 'query'>): Promise<Map<string, number>> {
  const r = await db.query<{ subscription: string; n: number }>(
    'SELECT subscription, count(*)::int AS n FROM parked_events GROUP BY subscription',
  );
  return new Map(r.rows.map((x) => [x.subscription, x.n]));
}

export async function unpark(
  db: Pick<pg.Pool, 'query'>,
  subscription: string,
  eventId: string,
): Promise<void> {
  await db.query('DELETE FROM parked_events WHERE subscription = $1 AND event_id = $2', [
    subscription,
    eventId,
  ]);
}

export async function recordRetryFailure(
  db: Pick<pg.Pool, 'query'>,
  subscription: string,
  eventId: string,
  error: unknown,
): Promise<void> {
  await db.query(
    `UPDATE parked_events SET error = $3, attempts = attempts + 1, last_attempt_at = now()
     WHERE subscription = $1 AND event_id = $2`,
    [subscription, eventId, describeError(error)],
  );
}

export const positionOf = (p: { commit: string; prepare: string }): Position => ({
  commit: BigInt(p.commit),
  prepare: BigInt(p.prepare),
});

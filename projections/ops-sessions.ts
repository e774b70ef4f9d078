import type pg from 'pg';
import { opsSessionEvents } from '../src/domain/ops-session/events.ts';
import type { Projection } from './projection.ts';

/** A session of the ops page, for its viewer's list of sessions. */
export interface OpsSessionRow {
  session_id: string;
  viewer_kind: 'operator' | 'admin';
  label_id: string | null;
  started_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  end_reason: string | null;
}

export const opsSessionsProjection: Projection = {
  name: 'ops-sessions',
  tables: ['rm_ops_sessions'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_ops_sessions (
      session_id  uuid PRIMARY KEY,
      viewer_kind text NOT NULL,
      label_id    uuid,
      started_at  timestamptz NOT NULL,
      expires_at  timestamptz NOT NULL,
      ended_at    timestamptz,
      end_reason  text
    );
    CREATE INDEX IF NOT EXISTS rm_ops_sessions_viewer
      ON rm_ops_sessions (viewer_kind, label_id, started_at DESC);`,
  handles: new Set(opsSessionEvents.types),
  async apply(tx, stored) {
    for (const s of stored) {
      const e = opsSessionEvents.deserialize(s);
      if (e.type === 'OpsSessionStarted') {
        const v = e.data.viewer;
        await tx.query(
          `INSERT INTO rm_ops_sessions (session_id, viewer_kind, label_id, started_at, expires_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT (session_id) DO NOTHING`,
          [
            e.data.sessionId,
            v.kind,
            v.kind === 'admin' ? v.labelId : null,
            e.data.startedAt,
            e.data.expiresAt,
          ],
        );
      } else {
        // the stream is OpsSession-<id>
        await tx.query(
          'UPDATE rm_ops_sessions SET ended_at = $2, end_reason = $3 WHERE session_id = $1',
          [s.streamId.slice('OpsSession-'.length), e.data.endedAt, e.data.reason],
        );
      }
    }
  },
};

// ---- queries ----

/**
 * A viewer's sessions (the operator's when `labelId` is null, else that label's
 * admins'), newest first: every open one, and those that ended or expired in the last
 * seven days.
 */
export async function listOpsSessions(
  pool: pg.Pool,
  labelId: string | null,
): Promise<OpsSessionRow[]> {
  const r = await pool.query<OpsSessionRow>(
    `SELECT session_id, viewer_kind, label_id, started_at, expires_at, ended_at, end_reason
     FROM rm_ops_sessions
     WHERE viewer_kind = $1 AND label_id IS NOT DISTINCT FROM $2::uuid
       AND coalesce(ended_at, expires_at) > now() - interval '7 days'
     ORDER BY started_at DESC LIMIT 200`,
    [labelId === null ? 'operator' : 'admin', labelId],
  );
  return r.rows;
}

import type pg from 'pg';
import { labelEvents } from '../src/domain/label/events.ts';
import type { Projection } from './projection.ts';

export const labelsProjection: Projection = {
  name: 'labels',
  tables: ['rm_labels'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_labels (
      label_id   uuid PRIMARY KEY,
      name       text NOT NULL,
      partner_id integer NOT NULL UNIQUE,
      created_at timestamptz NOT NULL
    );`,
  handles: new Set(['LabelCreated']),
  async apply(tx, stored) {
    const labels = stored.flatMap((s) => {
      const e = labelEvents.deserialize(s);
      return e.type === 'LabelCreated' ? [e.data] : [];
    });
    await tx.query(
      `INSERT INTO rm_labels (label_id, name, partner_id, created_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::timestamptz[])
       ON CONFLICT (label_id) DO NOTHING`,
      [
        labels.map((l) => l.labelId),
        labels.map((l) => l.name),
        labels.map((l) => l.partnerId),
        labels.map((l) => l.createdAt),
      ],
    );
  },
};

// ---- queries ----

/** Partner ids are PostgreSQL integers. */
export const MAX_PARTNER_ID = 2_147_483_647;

/**
 * The smallest partner id from `from` on that no label has: gaps are filled, so an
 * operator's choice of a large id (even the largest) never leaves no next one.
 */
export async function freePartnerId(pool: pg.Pool, from: number): Promise<number | undefined> {
  const r = await pool.query<{ next: string | null }>(
    `SELECT CASE
       WHEN $1::int8 > $2::int8 THEN NULL
       WHEN NOT EXISTS (SELECT 1 FROM rm_labels WHERE partner_id = $1::int8) THEN $1::int8
       ELSE (SELECT min(l.partner_id)::int8 + 1 FROM rm_labels l
             WHERE l.partner_id >= $1::int8 AND l.partner_id < $2::int8
               AND NOT EXISTS (SELECT 1 FROM rm_labels m WHERE m.partner_id = l.partner_id + 1))
     END AS next`,
    [from, MAX_PARTNER_ID],
  );
  const next = r.rows[0]?.next;
  return next === null || next === undefined ? undefined : Number(next);
}

import type pg from 'pg';
import {
  DEFAULT_RENDER_WITHIN_MINUTES,
  DEFAULT_SHARE_FACTOR,
  DEFAULT_SHIP_WITHIN_HOURS,
  labelEvents,
} from '../src/domain/label/events.ts';
import type { Projection } from './projection.ts';

export const labelsProjection: Projection = {
  name: 'labels',
  // 2: the render deadline
  // 3: the ship-by deadline
  // 4: the share factor
  version: 4,
  tables: ['rm_labels'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_labels (
      label_id   uuid PRIMARY KEY,
      name       text NOT NULL,
      partner_id integer NOT NULL UNIQUE,
      render_within_minutes integer NOT NULL DEFAULT ${DEFAULT_RENDER_WITHIN_MINUTES},
      ship_within_hours integer NOT NULL DEFAULT ${DEFAULT_SHIP_WITHIN_HOURS},
      share_factor integer NOT NULL DEFAULT ${DEFAULT_SHARE_FACTOR},
      created_at timestamptz NOT NULL
    );`,
  handles: new Set([
    'LabelCreated',
    'LabelRenderDeadlineSet',
    'LabelShipDeadlineSet',
    'LabelShareSet',
  ]),
  async apply(tx, stored) {
    const labels = [];
    for (const s of stored) {
      const e = labelEvents.deserialize(s);
      if (e.type === 'LabelCreated') labels.push(e.data);
      else if (e.type === 'LabelRenderDeadlineSet') {
        await insertLabels(tx, labels.splice(0)); // in order: the label exists first
        await tx.query('UPDATE rm_labels SET render_within_minutes = $2 WHERE label_id = $1', [
          e.data.labelId,
          e.data.renderWithinMinutes,
        ]);
      } else if (e.type === 'LabelShipDeadlineSet') {
        await insertLabels(tx, labels.splice(0));
        await tx.query('UPDATE rm_labels SET ship_within_hours = $2 WHERE label_id = $1', [
          e.data.labelId,
          e.data.shipWithinHours,
        ]);
      } else if (e.type === 'LabelShareSet') {
        await insertLabels(tx, labels.splice(0));
        await tx.query('UPDATE rm_labels SET share_factor = $2 WHERE label_id = $1', [
          e.data.labelId,
          e.data.factor,
        ]);
      }
    }
    await insertLabels(tx, labels);
  },
};

async function insertLabels(
  tx: pg.PoolClient,
  labels: { labelId: string; name: string; partnerId: number; createdAt: string }[],
): Promise<void> {
  if (labels.length === 0) return;
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
}

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

export interface LabelRow {
  label_id: string;
  name: string;
  partner_id: number;
  render_within_minutes: number;
  ship_within_hours: number;
}

/** Labels by name (one label's only, when `labelId` is given). */
export async function listLabels(pool: pg.Pool, labelId?: string): Promise<LabelRow[]> {
  const r = await pool.query<LabelRow>(
    `SELECT label_id, name, partner_id, render_within_minutes, ship_within_hours FROM rm_labels
     WHERE $1::uuid IS NULL OR label_id = $1 ORDER BY name, label_id`,
    [labelId ?? null],
  );
  return r.rows;
}

/** The labels whose share the operator changed, with their factor (few: the rest have 1). */
export async function changedShares(pool: pg.Pool): Promise<Map<string, number>> {
  const r = await pool.query<{ label_id: string; share_factor: number }>(
    `SELECT label_id, share_factor FROM rm_labels WHERE share_factor <> ${DEFAULT_SHARE_FACTOR}`,
  );
  return new Map(r.rows.map((row) => [row.label_id, row.share_factor]));
}

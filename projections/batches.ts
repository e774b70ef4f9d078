import type pg from 'pg';
import type { BatchingRule } from '../src/domain/batch/events.ts';
import { batchCode, batchEvents } from '../src/domain/batch/events.ts';
import { labelEvents } from '../src/domain/label/events.ts';
import type { Projection } from './projection.ts';

/** A press run as lists show it. */
export interface BatchRow {
  batch_id: string;
  label_id: string;
  facility_id: string | null;
  code: string;
  status: string;
  mode: string;
  media: { kind: string; preset?: string; widthMm: number; heightMm: number };
  source: string;
  items: number;
  refused: number;
  sheet_count: number | null;
  lower_bound: number | null;
  utilisation: number | null;
  sheets: { n: number; sha256: string; utilisation: number; pieces: number; items: string[] }[];
  printed: number[];
  failure: string | null;
  requested_at: Date;
  updated_at: Date;
}

export const batchesProjection: Projection = {
  name: 'batches',
  // 2: each batch's facility
  version: 2,
  tables: ['rm_batches', 'rm_batching'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_batches (
      batch_id     uuid PRIMARY KEY,
      label_id     uuid NOT NULL,
      facility_id  uuid,
      code         text NOT NULL,
      status       text NOT NULL,
      mode         text NOT NULL,
      media        jsonb NOT NULL,
      source       text NOT NULL,
      items        integer NOT NULL DEFAULT 0,
      refused      integer NOT NULL DEFAULT 0,
      sheet_count  integer,
      lower_bound  integer,
      utilisation  double precision,
      sheets       jsonb NOT NULL DEFAULT '[]',
      printed      integer[] NOT NULL DEFAULT '{}',
      failure      text,
      requested_at timestamptz NOT NULL,
      updated_at   timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS rm_batches_label ON rm_batches (label_id, requested_at DESC, batch_id);
    CREATE INDEX IF NOT EXISTS rm_batches_all ON rm_batches (requested_at DESC, batch_id);
    CREATE INDEX IF NOT EXISTS rm_batches_code ON rm_batches (label_id, code);
    CREATE TABLE IF NOT EXISTS rm_batching (
      label_id   uuid PRIMARY KEY,
      rules      jsonb NOT NULL,
      hot_folder text
    );`,
  handles: new Set([...batchEvents.types, 'LabelBatchingSet']),
  async apply(tx, stored) {
    for (const s of stored) {
      const at = s.recordedAt.toISOString();
      if (s.type === 'LabelBatchingSet') {
        const e = labelEvents.deserialize(s);
        if (e.type !== 'LabelBatchingSet') continue;
        await tx.query(
          `INSERT INTO rm_batching (label_id, rules, hot_folder) VALUES ($1, $2, $3)
           ON CONFLICT (label_id) DO UPDATE SET rules = $2, hot_folder = $3`,
          [e.data.labelId, JSON.stringify(e.data.rules), e.data.hotFolder],
        );
        continue;
      }
      const e = batchEvents.deserialize(s);
      const id = s.streamId.slice('Batch-'.length);
      const set = (fields: string, values: unknown[]) =>
        tx.query(`UPDATE rm_batches SET ${fields}, updated_at = $2 WHERE batch_id = $1`, [
          id,
          at,
          ...values,
        ]);
      switch (e.type) {
        case 'BatchRequested': {
          const d = e.data;
          await tx.query(
            `INSERT INTO rm_batches (batch_id, label_id, code, status, mode, media, source, refused, requested_at, updated_at, facility_id)
             VALUES ($1, $2, $3, 'claiming', $4, $5, $6, $7, $8, $8, $9) ON CONFLICT DO NOTHING`,
            [
              d.batchId,
              d.labelId,
              batchCode(d.batchId),
              d.spec.mode,
              JSON.stringify(d.spec.media),
              d.source.kind === 'rule' ? `rule ${d.source.rule}` : 'request',
              d.refused.length,
              d.requestedAt,
              d.facilityId ?? null,
            ],
          );
          break;
        }
        case 'BatchItemsClaimed':
          await set(
            `items = $3, refused = refused + $4,
             status = CASE WHEN status = 'claiming' THEN 'imposing' ELSE status END`,
            [e.data.items.length, e.data.refused.length],
          );
          break;
        case 'BatchImposed': {
          const d = e.data;
          const sheets = d.sheets.map((x) => ({
            n: x.n,
            sha256: x.sha256,
            utilisation: x.utilisation,
            pieces: x.placements.length,
            items: [...new Set(x.placements.map((p) => p.orderItemId))],
          }));
          await set(
            `status = CASE WHEN status = 'cancelled' THEN status ELSE 'imposed' END,
             sheet_count = $3, lower_bound = $4, utilisation = $5, sheets = $6`,
            [d.sheets.length, d.lowerBound, d.utilisation, JSON.stringify(sheets)],
          );
          break;
        }
        case 'BatchImpositionFailed':
          await set(
            `status = CASE WHEN status = 'cancelled' THEN status ELSE 'failed' END, failure = $3`,
            [e.data.reason],
          );
          break;
        case 'BatchSheetPrinted':
          await set(
            `printed = CASE WHEN $3 = ANY(printed) THEN printed ELSE printed || $3::int END,
             status = CASE WHEN status = 'imposed'
               AND cardinality(printed) + (CASE WHEN $3 = ANY(printed) THEN 0 ELSE 1 END) >= sheet_count
               THEN 'printed' ELSE status END`,
            [e.data.n],
          );
          break;
        case 'BatchCancelled':
          await set(`status = 'cancelled'`, []);
          break;
        default:
          break;
      }
    }
  },
};

// ---- queries ----

/** Batches newest first, of one label or of all. */
export async function listBatches(
  pool: pg.Pool,
  labelId: string | undefined,
  limit = 50,
  facilityId?: string,
): Promise<BatchRow[]> {
  const r = await pool.query<BatchRow>(
    `SELECT * FROM rm_batches WHERE ($1::uuid IS NULL OR label_id = $1)
       AND ($3::uuid IS NULL OR facility_id = $3)
     ORDER BY requested_at DESC, batch_id LIMIT $2`,
    [labelId ?? null, limit, facilityId ?? null],
  );
  return r.rows;
}

/** How many of the label's press runs are being taken or imposed now. */
export async function batchesUnderWay(pool: pg.Pool, labelId: string): Promise<number> {
  const r = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM rm_batches WHERE label_id = $1 AND status IN ('claiming', 'imposing')`,
    [labelId],
  );
  return r.rows[0]?.n ?? 0;
}

/** The batch a sheet's slug code names, of the label (a batch code is its id's first 48 bits). */
export async function batchesByCode(pool: pg.Pool, labelId: string, code: string) {
  const r = await pool.query<{ batch_id: string }>(
    'SELECT batch_id FROM rm_batches WHERE label_id = $1 AND code = $2',
    [labelId, code],
  );
  return r.rows.map((x) => x.batch_id);
}

/** Every label with batching rules, and its rules. */
export async function labelsWithRules(pool: pg.Pool) {
  const r = await pool.query<{ label_id: string; rules: BatchingRule[] }>(
    `SELECT label_id, rules FROM rm_batching WHERE jsonb_array_length(rules) > 0`,
  );
  return r.rows;
}

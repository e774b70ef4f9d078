import type pg from 'pg';
import { datasetEvents } from '../src/domain/dataset/events.ts';
import type { Projection } from './projection.ts';

/**
 * The data sets each label keeps (uploaded, not erased): what its maximum counts. Their
 * rows are never here (sealed outside the log); the data set's own stream answers its
 * facts.
 */
export const datasetsProjection: Projection = {
  name: 'datasets',
  tables: ['rm_datasets'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_datasets (
      dataset_id  uuid PRIMARY KEY,
      label_id    uuid NOT NULL,
      bytes       bigint NOT NULL,
      uploaded_at timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS rm_datasets_label ON rm_datasets (label_id);`,
  handles: new Set(datasetEvents.types),
  async apply(tx, stored) {
    for (const s of stored) {
      const e = datasetEvents.deserialize(s);
      if (e.type === 'DatasetUploaded')
        await tx.query(
          `INSERT INTO rm_datasets (dataset_id, label_id, bytes, uploaded_at)
           VALUES ($1, $2, $3, $4) ON CONFLICT (dataset_id) DO NOTHING`,
          [e.data.datasetId, e.data.labelId, e.data.bytes, e.data.uploadedAt],
        );
      else await tx.query('DELETE FROM rm_datasets WHERE dataset_id = $1', [e.data.datasetId]);
    }
  },
};

/** The data sets a label keeps now. */
export async function datasetCount(db: Pick<pg.Pool, 'query'>, labelId: string): Promise<number> {
  const r = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM rm_datasets WHERE label_id = $1',
    [labelId],
  );
  return r.rows[0]?.n ?? 0;
}

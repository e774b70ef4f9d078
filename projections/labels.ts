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

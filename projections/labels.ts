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
  handles: new Set(labelEvents.types),
  async apply(tx, stored) {
    const event = labelEvents.deserialize(stored);
    const d = event.data;
    await tx.query(
      `INSERT INTO rm_labels (label_id, name, partner_id, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (label_id) DO NOTHING`,
      [d.labelId, d.name, d.partnerId, d.createdAt],
    );
  },
};

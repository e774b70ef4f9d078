import type pg from 'pg';
import type { ImportKind } from '../src/domain/import/events.ts';
import { importEvents } from '../src/domain/import/events.ts';
import type { Position } from '../src/eventstore/port.ts';
import type { Projection } from './projection.ts';

export const importsProjection: Projection = {
  name: 'imports',
  // 2: where in the log the import completed (its configurations are usable from there)
  version: 2,
  tables: ['rm_imports'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_imports (
      import_id      uuid PRIMARY KEY,
      kind           text NOT NULL,
      supplier       text NOT NULL,
      total          integer NOT NULL,
      groups         integer,
      chunk_count    integer NOT NULL,
      chunks_applied integer NOT NULL DEFAULT 0,
      created        integer NOT NULL DEFAULT 0,
      skipped        jsonb NOT NULL DEFAULT '[]',
      requested_at   timestamptz NOT NULL,
      completed_at   timestamptz,
      completed_commit  text,
      completed_prepare text
    );`,
  handles: new Set(['ImportRequested', 'ImportChunkApplied', 'ImportCompleted']),
  async apply(tx, stored) {
    for (const s of stored) {
      const e = importEvents.deserialize(s);
      switch (e.type) {
        case 'ImportRequested':
          await tx.query(
            `INSERT INTO rm_imports (import_id, kind, supplier, total, groups, chunk_count, requested_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (import_id) DO NOTHING`,
            [
              e.data.importId,
              e.data.kind,
              e.data.supplier,
              e.data.total,
              e.data.groups ?? null,
              e.data.chunkCount,
              e.data.requestedAt,
            ],
          );
          break;
        case 'ImportChunkApplied':
          await tx.query(
            `UPDATE rm_imports SET chunks_applied = chunks_applied + 1, created = created + $2,
               skipped = skipped || $3::jsonb WHERE import_id = $1`,
            [e.data.importId, e.data.created, JSON.stringify(e.data.skipped)],
          );
          break;
        case 'ImportCompleted':
          await tx.query(
            `UPDATE rm_imports SET completed_at = $2, completed_commit = $3, completed_prepare = $4
             WHERE import_id = $1`,
            [
              e.data.importId,
              e.data.completedAt,
              String(s.position.commit),
              String(s.position.prepare),
            ],
          );
          break;
      }
    }
  },
};

export interface ImportView {
  importId: string;
  kind: ImportKind;
  supplier: string;
  status: 'running' | 'completed';
  total: number;
  groups?: number;
  processed: number;
  created: number;
  skipped: { sku: string; reason: string }[];
  requestedAt: string;
  completedAt?: string;
}

/** An import as its read model has it, with where in the log it completed. */
export type ImportRow = ImportView & { completedPosition?: Position };

export async function findImport(
  pool: pg.Pool,
  importId: string,
  kind: string,
): Promise<ImportRow | undefined> {
  const r = await pool.query('SELECT * FROM rm_imports WHERE import_id = $1 AND kind = $2', [
    importId,
    kind,
  ]);
  const row = r.rows[0];
  if (!row) return undefined;
  const skipped = row.skipped as ImportView['skipped'];
  return {
    importId: row.import_id,
    kind: row.kind,
    supplier: row.supplier,
    status: row.completed_at ? 'completed' : 'running',
    total: row.total,
    ...(row.groups !== null ? { groups: row.groups } : {}),
    processed: row.created + skipped.length,
    created: row.created,
    skipped,
    requestedAt: new Date(row.requested_at).toISOString(),
    ...(row.completed_at ? { completedAt: new Date(row.completed_at).toISOString() } : {}),
    ...(row.completed_commit
      ? {
          completedPosition: {
            commit: BigInt(row.completed_commit),
            prepare: BigInt(row.completed_prepare),
          },
        }
      : {}),
  };
}

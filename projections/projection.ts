import type pg from 'pg';
import type { RecordedEvent } from '../src/eventstore/port.ts';

/**
 * A read model: the event types it handles, the SQL of its tables, and how a batch of
 * events changes them. `apply` runs inside the runner's transaction, which also moves
 * the projection's checkpoint, so each event takes effect exactly once. It gets a whole
 * page of handled events so it can write them in a few statements, not one per event.
 */
export interface Projection {
  name: string;
  /**
   * The shape of its tables (1 when absent). When it differs from the version the
   * tables were built with, the tables are rebuilt from the event log at start.
   */
  version?: number;
  /** tables this projection owns; a rebuild drops them */
  tables: string[];
  /** creates the tables (idempotent) */
  schema: string;
  handles: ReadonlySet<string>;
  /** after catching up, wait this long before looking again (subscription-runner.ts) */
  gatherMs?: number;
  /** pages of up to this many events (the runner's batch size otherwise) */
  pageSize?: number;
  /** gets its events as views over the stored rows (port.ts ReadAllOptions.views) */
  views?: true;
  /**
   * Work queued from the log rather than a view of it: built once from the first event,
   * never rebuilt (while a rebuild replays, work done long ago would look queued again).
   * Its version never changes; its tables change by migration.
   */
  neverRebuilt?: true;
  apply(tx: pg.PoolClient, events: RecordedEvent[]): Promise<void>;
}

/**
 * The `handles` of a projection of every event, whatever its type (the audit log's
 * tree): `has` is true for any type; it lists none, and readers ask for every type's data.
 */
export const EVERY_EVENT: ReadonlySet<string> = new (class extends Set<string> {
  override has(_type: string): boolean {
    return true;
  }
})();

/** The types whose data a projection reads (undefined: every type's). */
export const typesOf = (handles: ReadonlySet<string>): string[] | undefined =>
  handles === EVERY_EVENT ? undefined : [...handles];

import type pg from 'pg';
import type { Logger } from 'pino';
import { READ_MODEL_CHANNEL } from '../src/db/change-feed.ts';
import { inTransaction } from '../src/db/database.ts';
import { comparePositions, type EventStore, type Position, START } from '../src/eventstore/port.ts';
import type { WakeSignal } from '../src/eventstore/subscription.ts';
import type { Projection } from './projection.ts';

const CHECKPOINTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  name       text PRIMARY KEY,
  commit_pos numeric NOT NULL,
  prepare_pos numeric NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);`;

export interface ProjectionStatus {
  name: string;
  checkpoint: { commit: string; prepare: string };
  /** events after the checkpoint, counted up to 100000 */
  behind: number;
  running: boolean;
}

export interface RunnerOptions {
  batchSize?: number;
  idleMs?: number;
  /**
   * Told around each commit that changes a projection's tables: `committing` before it
   * (from then on another connection may see the change), `committed` once it ended,
   * so this process's caches never serve what a reader elsewhere knows to be old.
   */
  onCommit?: (projection: string, phase: 'committing' | 'committed') => void;
  /** woken by this process's appends (the PostgreSQL store's), to cut an idle wait short */
  wakeups?: WakeSignal;
}

const lockKey = (name: string) => `projection:${name}`;
const ANALYZE_AFTER = 5000;

/**
 * Runs projections. Each runs in at most one process at a time (a session advisory lock
 * held on a dedicated connection; other instances retry and take over when it goes).
 * Each batch: read a page of events (outside any transaction: see database.ts on
 * PGlite), then in one transaction re-check the stored checkpoint, apply the events
 * the projection handles and move the checkpoint past the whole page.
 */
export class ProjectionRunner {
  private readonly byName: Map<string, Projection>;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly owned = new Set<string>();
  private readonly batchSize: number;
  private readonly idleMs: number;
  private readonly onCommit: (projection: string, phase: 'committing' | 'committed') => void;
  private readonly wakeups: WakeSignal | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: EventStore,
    projections: Projection[],
    private readonly log: Logger,
    options: RunnerOptions = {},
  ) {
    this.byName = new Map(projections.map((p) => [p.name, p]));
    this.batchSize = options.batchSize ?? 1000;
    this.idleMs = options.idleMs ?? 50;
    this.onCommit = options.onCommit ?? (() => {});
    this.wakeups = options.wakeups;
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** Creates the checkpoint table and every projection's tables. */
  async migrate(db: Pick<pg.Pool, 'query'> = this.pool): Promise<void> {
    await db.query(CHECKPOINTS_SCHEMA);
    for (const p of this.byName.values()) await db.query(p.schema);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const p of this.byName.values()) this.loops.push(this.supervise(p));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.loops = [];
    const held = this.lockClient;
    this.lockClient = undefined;
    // destroyed, not pooled: a pooled session would keep any lock it still holds
    if (held) (await held.catch(() => undefined))?.release(true);
  }

  /**
   * One connection holds the advisory locks of every projection this process runs, so
   * running projections costs one connection, not one each. If it breaks, its locks are
   * gone with it: every projection stops and competes for its lock again.
   */
  private lockClient: Promise<pg.PoolClient> | undefined;

  private locks(): Promise<pg.PoolClient> {
    if (!this.lockClient) {
      const pending = this.pool.connect().then((client) => {
        client.on('error', () => this.dropLocks(pending));
        return client;
      });
      pending.catch(() => this.dropLocks(pending));
      this.lockClient = pending;
    }
    return this.lockClient;
  }

  private dropLocks(which: Promise<pg.PoolClient>): void {
    if (this.lockClient !== which) return;
    this.lockClient = undefined;
    this.owned.clear();
    which.then((c) => c.release(true)).catch(() => {});
  }

  /** Every projection's loop shares the lock connection: one query on it at a time. */
  private lockQueue: Promise<unknown> = Promise.resolve();
  private onLockClient<T>(query: () => Promise<T>): Promise<T> {
    const result = this.lockQueue.then(query, query);
    this.lockQueue = result.catch(() => {});
    return result;
  }

  private async supervise(p: Projection): Promise<void> {
    while (this.running) {
      try {
        const held = this.locks();
        const locks = await held;
        const r = await this.onLockClient(() =>
          locks.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
            lockKey(p.name),
          ]),
        );
        if (!r.rows[0]!.ok) {
          await delay(1000); // another instance runs it
          continue;
        }
        this.owned.add(p.name);
        try {
          while (this.running && this.owned.has(p.name)) {
            const client = await this.pool.connect();
            let n: number;
            try {
              n = await this.step(p, client);
            } finally {
              client.release();
            }
            this.sinceAnalyze.set(p.name, (this.sinceAnalyze.get(p.name) ?? 0) + n);
            if (n < this.batchSize) {
              await this.analyzeAfterBulk(p);
              await this.waitForEvents();
            }
          }
        } finally {
          if (this.owned.delete(p.name) && this.lockClient === held) {
            await this.onLockClient(() =>
              locks.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(p.name)]),
            ).catch(() => {});
          }
        }
      } catch (err) {
        this.log.error({ err, projection: p.name }, 'projection failed; retrying');
        await delay(1000);
      }
    }
  }

  private readonly sinceAnalyze = new Map<string, number>();

  /**
   * After a bulk catch-up the planner's statistics lag far behind the tables (autovacuum
   * analyzes within a minute or so); until then it can pick a sort over every row instead
   * of an index. So a projection that caught up after many events analyzes its tables.
   */
  private async analyzeAfterBulk(p: Projection): Promise<void> {
    if ((this.sinceAnalyze.get(p.name) ?? 0) < ANALYZE_AFTER) return;
    this.sinceAnalyze.set(p.name, 0);
    for (const table of p.tables) await this.pool.query(`ANALYZE ${table}`);
  }

  private waitForEvents(): Promise<void> {
    return this.wakeups ? this.wakeups.wait(this.idleMs * 4) : delay(this.idleMs);
  }

  /** Processes one page; returns the number of events read. */
  async step(p: Projection, client: pg.PoolClient): Promise<number> {
    const from = await this.checkpoint(p.name);
    const page = await this.store.readAll({
      after: from,
      limit: this.batchSize,
      dataOf: [...p.handles],
    });
    if (page.length === 0) return 0;
    const last = page[page.length - 1]!.position;
    await client.query('BEGIN');
    try {
      const r = await client.query<{ commit_pos: string; prepare_pos: string }>(
        'SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = $1 FOR UPDATE',
        [p.name],
      );
      const now = r.rows[0] ? toPosition(r.rows[0]) : START;
      if (comparePositions(now, from) !== 0) {
        // reset by a rebuild (or moved by another runner) since we read it: start over
        await client.query('ROLLBACK');
        return this.batchSize;
      }
      const handled = page.filter((e) => p.handles.has(e.type));
      const changes = handled.length > 0;
      if (changes) {
        await p.apply(client, handled);
        // delivered at commit to other processes' caches of this read model
        await client.query(`SELECT pg_notify('${READ_MODEL_CHANNEL}', $1)`, [p.name]);
      }
      await client.query(
        `INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos, updated_at)
         VALUES ($1, $2, $3, now())
         ON CONFLICT (name) DO UPDATE SET commit_pos = $2, prepare_pos = $3, updated_at = now()`,
        [p.name, last.commit.toString(), last.prepare.toString()],
      );
      if (changes) this.onCommit(p.name, 'committing');
      try {
        await client.query('COMMIT');
      } finally {
        if (changes) this.onCommit(p.name, 'committed');
      }
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
    return page.length;
  }

  async checkpoint(name: string): Promise<Position> {
    const r = await this.pool.query<{ commit_pos: string; prepare_pos: string }>(
      'SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = $1',
      [name],
    );
    return r.rows[0] ? toPosition(r.rows[0]) : START;
  }

  /**
   * Waits until a projection has processed `position` (read-your-writes after an
   * append). Returns false when the time is up.
   */
  async waitFor(name: string, position: Position, timeoutMs = 3000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (comparePositions(await this.checkpoint(name), position) >= 0) return true;
      if (Date.now() >= deadline) return false;
      await delay(5);
    }
  }

  async status(): Promise<ProjectionStatus[]> {
    const out: ProjectionStatus[] = [];
    for (const name of this.byName.keys()) {
      const cp = await this.checkpoint(name);
      out.push({
        name,
        checkpoint: { commit: cp.commit.toString(), prepare: cp.prepare.toString() },
        behind: await this.store.countAfter(cp, 100_000),
        running: this.owned.has(name),
      });
    }
    return out;
  }

  /**
   * Drops a projection's tables, recreates them and resets its checkpoint in one
   * transaction; whichever runner holds the projection then replays from the start.
   */
  async reset(name: string): Promise<void> {
    const p = this.byName.get(name);
    if (!p) throw new Error(`unknown projection ${name}; known: ${this.names.join(', ')}`);
    this.onCommit(name, 'committing');
    try {
      await inTransaction(this.pool, async (tx) => {
        await tx.query('SELECT 1 FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [name]);
        for (const t of p.tables) await tx.query(`DROP TABLE IF EXISTS ${t} CASCADE`);
        await tx.query(p.schema);
        await tx.query('DELETE FROM projection_checkpoints WHERE name = $1', [name]);
        await tx.query(`SELECT pg_notify('${READ_MODEL_CHANNEL}', $1)`, [name]);
      });
    } finally {
      this.onCommit(name, 'committed');
    }
  }

  /** Runs one projection to the head now (used by the rebuild command when no runner has it). */
  async catchUp(name: string): Promise<boolean> {
    const p = this.byName.get(name);
    if (!p) throw new Error(`unknown projection ${name}`);
    const client = await this.pool.connect();
    try {
      const r = await client.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS ok',
        [lockKey(name)],
      );
      if (!r.rows[0]!.ok) return false;
      try {
        while ((await this.step(p, client)) > 0) {}
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(name)]);
      }
      return true;
    } finally {
      client.release();
    }
  }
}

const toPosition = (r: { commit_pos: string; prepare_pos: string }): Position => ({
  commit: BigInt(r.commit_pos),
  prepare: BigInt(r.prepare_pos),
});

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

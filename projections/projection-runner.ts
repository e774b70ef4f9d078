import type pg from 'pg';
import type { Logger } from 'pino';
import { READ_MODEL_CHANNEL } from '../src/db/change-feed.ts';
import { inTransaction } from '../src/db/database.ts';
import { isTransient } from '../src/errors.ts';
import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
  START,
} from '../src/eventstore/port.ts';
import { WakeSignal } from '../src/eventstore/subscription.ts';
import {
  type RunnerOptions as BaseOptions,
  delay,
  RetryLater,
  SubscriptionRunner,
  UnknownSubscriptionError,
} from '../src/subscriptions/subscription-runner.ts';
import { followingEvents, tracingOn } from '../src/telemetry/tracing.ts';
import { type Projection, typesOf } from './projection.ts';

export interface RunnerOptions extends BaseOptions {
  /**
   * Told around each commit that changes a projection's tables: `committing` before it
   * (from then on another connection may see the change), `committed` once it ended,
   * so this process's caches never serve what a reader elsewhere knows to be old.
   */
  onCommit?: (projection: string, phase: 'committing' | 'committed') => void;
}

const ANALYZE_AFTER = 5000;

/**
 * A transaction applying projections' pages, as a span of the trace of the first event it
 * handles, linked to the traces of the others (tracing.ts): an order's trace shows the
 * read models catching up with it.
 */
function projecting<T>(pages: PageToCommit[], work: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return work(); // no event's metadata parsed for nothing
  const handling = pages.filter((m) => m.handled.length > 0);
  if (handling.length === 0) return work();
  return followingEvents(
    handling.flatMap((m) => m.handled.map((e) => e.metadata.traceparent)),
    'project',
    {
      'projection.names': handling.map((m) => m.p.name),
      'events.count': handling.reduce((n, m) => n + m.handled.length, 0),
    },
    work,
  );
}

/** A projection's page, read and ready to be committed. */
interface PageToCommit {
  p: Projection;
  /** the checkpoint it was read from */
  from: Position;
  page: RecordedEvent[];
  /** the page's events the projection handles */
  handled: RecordedEvent[];
}

interface Settle {
  resolve(outcome: 'done' | 'moved'): void;
  reject(err: unknown): void;
}

/** The shared transaction failed: the page is to be committed on its own. */
class GroupFailed extends Error {
  override name = 'GroupFailed';
  constructor(readonly reason: unknown) {
    super('the shared transaction failed');
  }
}

const PROJECTION_VERSIONS_SCHEMA = `
CREATE TABLE IF NOT EXISTS projection_versions (
  name    text PRIMARY KEY,
  version integer NOT NULL
);`;

/**
 * Runs projections. Each batch: read a page of events (outside any transaction: see
 * database.ts on PGlite), then in one transaction re-check the stored checkpoint, apply
 * the events the projection handles and move the checkpoint past the whole page. The
 * pages of projections woken by the same append share that transaction.
 * When the batch fails, it is tried again event by event (each in a savepoint) to find
 * the one at fault; after `parkAfter` failures that event is parked in the same
 * transaction that applies the rest of the page, so nothing else is held back.
 */
export class ProjectionRunner extends SubscriptionRunner<Projection> {
  protected readonly kind = 'projection' as const;
  private readonly onCommit: (projection: string, phase: 'committing' | 'committed') => void;
  private readonly sinceAnalyze = new Map<string, number>();

  constructor(
    pool: pg.Pool,
    store: EventStore,
    projections: Projection[],
    log: Logger,
    options: RunnerOptions = {},
  ) {
    super(pool, store, projections, log, options);
    this.onCommit = options.onCommit ?? (() => {});
  }

  /**
   * Creates the checkpoint and parking tables and every projection's tables. A
   * projection whose version changed since its tables were built is dropped and starts
   * over from the first event (its old rows may lack what the new code reads).
   * Runs inside the caller's schema transaction.
   */
  override async migrate(db: Pick<pg.Pool, 'query'> = this.pool): Promise<void> {
    await super.migrate(db);
    await db.query(PROJECTION_VERSIONS_SCHEMA);
    for (const p of this.byName.values()) {
      const version = p.version ?? 1;
      const r = await db.query<{ version: number }>(
        'SELECT version FROM projection_versions WHERE name = $1',
        [p.name],
      );
      // no row: never built (its tables are missing), or built before versions were
      // recorded, which is version 1
      const exists = await db.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
        p.tables[0],
      ]);
      const built = r.rows[0]?.version ?? (exists.rows[0]?.t ? 1 : version);
      if (p.neverRebuilt && built !== version)
        throw new Error(`${p.name} is never rebuilt: its version stays ${built}`);
      if (built !== version) {
        this.log.warn(
          { projection: p.name, from: built, to: version },
          'projection rebuilt for a new version',
        );
        await this.dropTables(db, p);
      }
      await db.query(p.schema);
      await db.query(
        `INSERT INTO projection_versions (name, version) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET version = $2`,
        [p.name, version],
      );
    }
  }

  /** Drops a projection's tables and forgets its checkpoint and parked events. */
  private async dropTables(db: Pick<pg.Pool, 'query'>, p: Projection): Promise<void> {
    for (const t of p.tables) await db.query(`DROP TABLE IF EXISTS ${t} CASCADE`);
    await db.query('DELETE FROM projection_checkpoints WHERE name = $1', [p.name]);
    await db.query('DELETE FROM parked_events WHERE subscription = $1', [p.name]);
  }

  /**
   * After a bulk catch-up the planner's statistics lag far behind the tables (autovacuum
   * analyzes within a minute or so); until then it can pick a sort over every row instead
   * of an index. So a projection that caught up after many events analyzes its tables.
   */
  protected override async afterCatchUp(p: Projection): Promise<void> {
    // counted from the last catch-up: a projection keeping up with a busy log (its pages
    // small, read as they come) leaves its statistics to autovacuum
    const caughtUpAfter = this.sinceAnalyze.get(p.name) ?? 0;
    this.sinceAnalyze.set(p.name, 0);
    if (caughtUpAfter < ANALYZE_AFTER) return;
    for (const table of p.tables) await this.pool.query(`ANALYZE ${table}`);
  }

  /** Checkpoints this process committed: the next step starts there without reading it. */
  private readonly committed = new Map<string, Position>();
  /** told when this process commits a page: read-your-writes waits on it */
  private readonly progress = new WakeSignal();

  protected override forget(name: string): void {
    this.committed.delete(name);
  }

  async step(p: Projection, client: pg.PoolClient): Promise<number> {
    // checked again inside the transaction: a rebuild meanwhile starts the step over
    const from = this.committed.get(p.name) ?? (await this.checkpoint(p.name));
    const page = await this.store.readAll({
      after: from,
      limit: this.pageSize(p),
      ...(typesOf(p.handles) ? { dataOf: typesOf(p.handles) } : {}),
      ...(p.views ? { views: true } : {}),
    });
    if (page.length === 0) return 0;
    const handled = page.filter((e) => p.handles.has(e.type));
    const outcome = await this.commit({ p, from, page, handled }, client);
    if (outcome === 'moved') return this.pageSize(p);
    this.sinceAnalyze.set(p.name, (this.sinceAnalyze.get(p.name) ?? 0) + page.length);
    return page.length;
  }

  /**
   * Commits a page together with the pages other projections are ready to commit; when
   * that transaction fails, on a transaction of its own, and when that fails too, event
   * by event to find the one at fault. A projection whose own transaction failed commits
   * alone until one succeeds again, so a broken projection does not fail everyone's.
   */
  private async commit(page: PageToCommit, client: pg.PoolClient): Promise<'done' | 'moved'> {
    const { p, from, handled } = page;
    if (!this.alone.has(p.name)) {
      try {
        return await this.together(page);
      } catch (err) {
        if (!(err instanceof GroupFailed)) throw err;
      }
    }
    try {
      const outcome = await projecting([page], () =>
        this.commitPage(p, client, from, page.page, handled, false),
      );
      this.alone.delete(p.name);
      return outcome;
    } catch (err) {
      this.alone.add(p.name);
      if (handled.length === 0 || isTransient(err)) throw err;
      return await this.commitPage(p, client, from, page.page, handled, true);
    }
  }

  /** projections that commit on their own transaction (theirs failed last time) */
  private readonly alone = new Set<string>();
  /** pages waiting for the next shared transaction */
  private waiting: (PageToCommit & Settle)[] = [];
  private groupRunning = false;

  /**
   * The projections woken by one append finish their pages in the same turn of the event
   * loop: those pages (and any that come while a shared transaction runs) are committed
   * in one transaction, one at a time, instead of one transaction each.
   */
  private together(page: PageToCommit): Promise<'done' | 'moved'> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ...page, resolve, reject });
      if (this.groupRunning) return;
      this.groupRunning = true;
      setImmediate(() => void this.commitGroups());
    });
  }

  private async commitGroups(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const members = this.waiting.splice(0);
        await projecting(members, () => this.commitGroup(members));
      }
    } finally {
      this.groupRunning = false;
    }
  }

  /**
   * One transaction for several projections' pages: each checkpoint checked (a page whose
   * checkpoint moved meanwhile is left out and its step starts over), the handled events
   * applied, the checkpoints moved. Any failure rolls back all of it; each page is then
   * committed again on its own.
   */
  private async commitGroup(members: (PageToCommit & Settle)[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      for (const m of members) m.reject(new GroupFailed(err));
      return;
    }
    let destroy = false;
    try {
      await client.query('BEGIN');
      const now = await this.lockedCheckpoints(
        client,
        members.map((m) => m.p.name),
      );
      const moving = members.filter(
        (m) => comparePositions(now.get(m.p.name) ?? START, m.from) === 0,
      );
      const changed = moving.filter((m) => m.handled.length > 0);
      for (const m of changed) await m.p.apply(client, m.handled);
      const ends = moving.map((m) => ({ name: m.p.name, at: m.page[m.page.length - 1]!.position }));
      const names = changed.map((m) => m.p.name);
      // announced at commit to other processes' caches of these read models
      await this.saveCheckpoints(client, ends, false, names);
      for (const name of names) this.onCommit(name, 'committing');
      try {
        await client.query('COMMIT');
        for (const { name, at } of ends) this.committed.set(name, at);
        this.progress.notify();
      } finally {
        for (const name of names) this.onCommit(name, 'committed');
      }
      for (const m of members) {
        if (moving.includes(m)) m.resolve('done');
        else {
          // reset by a rebuild (or moved by another runner) since it was read: start over
          this.committed.delete(m.p.name);
          m.resolve('moved');
        }
      }
    } catch (err) {
      destroy = isTransient(err);
      await client.query('ROLLBACK').catch(() => {});
      for (const m of members) m.reject(new GroupFailed(err));
    } finally {
      client.release(destroy || undefined);
    }
  }

  private async lockedCheckpoints(
    client: pg.PoolClient,
    names: string[],
  ): Promise<Map<string, Position>> {
    // in one order, as every other holder of these rows takes one row only
    const r = await client.query<{ name: string; commit_pos: string; prepare_pos: string }>(
      `SELECT name, commit_pos, prepare_pos FROM projection_checkpoints
       WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE`,
      [names],
    );
    return new Map(
      r.rows.map((row) => [
        row.name,
        { commit: BigInt(row.commit_pos), prepare: BigInt(row.prepare_pos) },
      ]),
    );
  }

  /**
   * One transaction: check the checkpoint is still `from`, apply the handled events,
   * move the checkpoint to the end of the page. With `isolate`, each event gets a
   * savepoint; the first that fails is counted (RetryLater until it is to be parked) and
   * then parked, and the others still apply.
   */
  private async commitPage(
    p: Projection,
    client: pg.PoolClient,
    from: Position,
    page: RecordedEvent[],
    handled: RecordedEvent[],
    isolate: boolean,
  ): Promise<'done' | 'moved'> {
    const last = page[page.length - 1]!.position;
    await client.query('BEGIN');
    try {
      const now = (await this.lockedCheckpoints(client, [p.name])).get(p.name) ?? START;
      if (comparePositions(now, from) !== 0) {
        // reset by a rebuild (or moved by another runner) since we read it: start over
        await client.query('ROLLBACK');
        this.committed.delete(p.name);
        return 'moved';
      }
      let changes = handled.length > 0;
      if (!isolate) {
        if (changes) await p.apply(client, handled);
      } else {
        changes = false;
        for (const event of handled) {
          await client.query('SAVEPOINT one_event');
          try {
            await p.apply(client, [event]);
            await client.query('RELEASE SAVEPOINT one_event');
            changes = true;
          } catch (err) {
            await client.query('ROLLBACK TO SAVEPOINT one_event');
            const attempts = this.failed(p, event, err); // throws unless it is to be parked
            await this.park(client, p, event, err, attempts);
          }
        }
      }
      // announced at commit to other processes' caches of this read model
      await this.saveCheckpoints(
        client,
        [{ name: p.name, at: last }],
        false,
        changes ? [p.name] : [],
      );
      if (changes) this.onCommit(p.name, 'committing');
      try {
        await client.query('COMMIT');
        this.committed.set(p.name, last);
        this.progress.notify();
      } finally {
        if (changes) this.onCommit(p.name, 'committed');
      }
      return 'done';
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  /** A parked event applied on its own (after a fix), serialised with the runner's batches. */
  protected async retryOne(p: Projection, event: RecordedEvent): Promise<void> {
    this.onCommit(p.name, 'committing');
    try {
      await inTransaction(this.pool, async (tx) => {
        await this.lockedCheckpoints(tx, [p.name]);
        await p.apply(tx, [event]);
        await tx.query(`SELECT pg_notify('${READ_MODEL_CHANNEL}', $1)`, [p.name]);
      });
    } finally {
      this.onCommit(p.name, 'committed');
    }
  }

  /**
   * Waits until a projection has processed `position` (read-your-writes after an
   * append). Returns false when the time is up. `readsOnly`: the caller only reads the
   * read model, so a projection with nothing of its types up to `position` has it,
   * though its checkpoint may be short of it (a caller that locks the checkpoint at
   * `position`, as the image clean-up does, needs the checkpoint there). `lastType`: the
   * type of the event at `position` (an append's last), where the caller knows it.
   */
  async waitFor(
    name: string,
    position: Position,
    timeoutMs = 3000,
    { readsOnly = false, lastType }: { readsOnly?: boolean; lastType?: string } = {},
  ): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    // the last event of its types up to `position` the log showed: until the projection
    // committed it, only its commits can end the wait, and the log is not asked again.
    // An event of its types at `position` itself is that event, without asking.
    let pending: Position | undefined =
      lastType && this.byName.get(name)?.handles.has(lastType) ? position : undefined;
    for (let waited = false; ; waited = true) {
      // this process's own commits are known at once; another process's are read (a
      // projection this process runs is read only until it committed here)
      const known = this.committed.get(name);
      if (known && comparePositions(known, position) >= 0) return true;
      const here = known !== undefined && this.owned.has(name);
      const stored = here ? undefined : await this.checkpoint(name);
      if (stored && comparePositions(stored, position) >= 0) return true;
      // a projection that no append of its types woke stays at its last page, before
      // `position`: once it has had its moment, the log says whether it has anything to
      // take. Only for a reader: its checkpoint itself may still be short of `position`.
      const at = known ?? stored!;
      if (readsOnly && waited && (!pending || comparePositions(at, pending) >= 0)) {
        const found = await this.nothingToTake(name, at, position);
        if (found.log === 'nothing') return true;
        pending = found.log === 'pending' ? found.last : undefined;
      }
      if (Date.now() >= deadline) return false;
      // woken by this process's next commit; polled when another process runs it
      await this.progress.wait(Math.min(here ? 250 : 50, Math.max(1, deadline - Date.now())));
    }
  }

  /**
   * Whether the log holds no event a projection handles after `from` up to `position`,
   * with every transaction up to `position` settled (none still open could add one);
   * `pending` when it holds one.
   */
  private async nothingToTake(
    name: string,
    from: Position,
    position: Position,
  ): Promise<{ log: 'nothing' | 'unsettled' } | { log: 'pending'; last: Position }> {
    const p = this.byName.get(name);
    if (!p) return { log: 'unsettled' };
    // every event's projection takes any type (null: no filter)
    const values: unknown[] = [
      String(position.commit),
      String(position.prepare),
      typesOf(p.handles) ?? null,
    ];
    if (from.commit >= 0n) values.push(String(from.commit), String(from.prepare));
    const { rows } = await this.pool.query<{
      settled: boolean;
      last_tx: string | null;
      last_seq: string | null;
    }>(
      `SELECT pg_snapshot_xmin(pg_current_snapshot()) > $1::text::xid8 AS settled,
              last.tx_id::text AS last_tx, last.seq AS last_seq
       FROM (SELECT 1) one LEFT JOIN LATERAL (
         SELECT tx_id, seq FROM es_events WHERE (tx_id, seq) <= ($1::text::xid8, $2::bigint)
           AND ($3::text[] IS NULL OR type = ANY($3::text[]))
           ${values.length > 3 ? 'AND (tx_id, seq) > ($4::text::xid8, $5::bigint)' : ''}
         ORDER BY tx_id DESC, seq DESC LIMIT 1) last ON true`,
      values,
    );
    const row = rows[0];
    if (row?.last_tx && row.last_seq)
      return {
        log: 'pending',
        last: { commit: BigInt(row.last_tx), prepare: BigInt(row.last_seq) },
      };
    return { log: row?.settled ? 'nothing' : 'unsettled' };
  }

  /**
   * Drops a projection's tables, recreates them, resets its checkpoint and forgets its
   * parked events in one transaction; whichever runner holds the projection then replays
   * from the start (and parks again what still fails).
   */
  async reset(name: string): Promise<void> {
    const p = this.byName.get(name);
    if (!p) throw new UnknownSubscriptionError(name, this.names);
    if (p.neverRebuilt)
      throw new Error(`${name} queues work from the log: rebuilding it would do the work again`);
    this.committed.delete(name);
    this.onCommit(name, 'committing');
    try {
      await inTransaction(this.pool, async (tx) => {
        await tx.query('SELECT 1 FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [name]);
        await this.dropTables(tx, p);
        await tx.query(p.schema);
        await tx.query(`SELECT pg_notify('${READ_MODEL_CHANNEL}', $1)`, [name]);
      });
    } finally {
      this.onCommit(name, 'committed');
    }
    // this process's runner replays at once, not at its next wake-up
    this.wake(p.handles);
  }

  /**
   * Runs one projection to the head now (the rebuild command, when no runner has it):
   * failing events are retried after their back-off and parked like the runner does.
   */
  async catchUp(name: string): Promise<boolean> {
    const p = this.byName.get(name);
    if (!p) throw new UnknownSubscriptionError(name, this.names);
    const client = await this.pool.connect();
    try {
      const r = await client.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS ok',
        [this.lockKey(name)],
      );
      if (!r.rows[0]!.ok) return false;
      try {
        for (;;) {
          try {
            if ((await this.advance(p)) === 0) break;
          } catch (err) {
            if (!(err instanceof RetryLater)) throw err;
            await delay(this.backoffMs(err.attempt));
          }
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [this.lockKey(name)]);
      }
      return true;
    } finally {
      client.release();
    }
  }
}

import type pg from 'pg';
import type { Logger } from 'pino';
import { READ_MODEL_CHANNEL } from '../db/change-feed.ts';
import { isTransient } from '../errors.ts';
import { type EventStore, type Position, type RecordedEvent, START } from '../eventstore/port.ts';
import type { WakeSignal } from '../eventstore/subscription.ts';
import {
  countParked,
  describeError,
  listParked,
  PARKED_SCHEMA,
  type ParkedEvent,
  park,
  positionOf,
  recordRetryFailure,
  unpark,
} from './parked.ts';

const CHECKPOINTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  name       text PRIMARY KEY,
  commit_pos numeric NOT NULL,
  prepare_pos numeric NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);`;

/** Something that follows the event log from a stored checkpoint. */
export interface Subscriber {
  name: string;
  handles: ReadonlySet<string>;
  /**
   * After catching up, wait this long before looking again: the appends of that time are
   * taken in one page (fewer, larger transactions for a subscriber of every append).
   */
  gatherMs?: number;
  /**
   * Pages of up to this many events (the runner's batch size otherwise): a subscriber of
   * every append whose cost is mostly per transaction takes larger ones.
   */
  pageSize?: number;
}

export interface SubscriptionStatus {
  name: string;
  kind: 'projection' | 'reactor';
  checkpoint: { commit: string; prepare: string };
  /** events after the checkpoint, counted up to 100000 */
  behind: number;
  /** age of the oldest event not yet taken, 0 when caught up */
  lagSeconds: number;
  /** this process runs it (one process at a time does) */
  running: boolean;
  /** set while this process cannot advance it: since when and why */
  failing: { since: string; error: string } | null;
  parked: number;
}

/** Even with a wake signal, a reader looks at least this often. */
const WAKE_LIMIT_MS = 5000;

export interface RunnerOptions {
  batchSize?: number;
  idleMs?: number;
  /** woken by this process's appends, to cut an idle wait short */
  wakeups?: WakeSignal;
  /**
   * with wakeups, how long a reader waits for one before it looks anyway (default 5 s); a
   * test sets it far above any wake's delay, so that a reaction it sees came from a wake
   */
  wakeLimitMs?: number;
  /** attempts on an event that keeps failing before it is parked (default 3) */
  parkAfter?: number;
  /** back-off before attempt n+1 of an event, and between transient failures (ms) */
  backoffMs?: (attempt: number) => number;
}

/** An event failed; it is tried again after the back-off (and parked after enough tries). */
export class RetryLater extends Error {
  override name = 'RetryLater';
  constructor(
    readonly attempt: number,
    cause: unknown,
  ) {
    super(describeError(cause));
  }
}

const defaultBackoff = (attempt: number) => Math.min(30_000, 500 * 2 ** Math.max(0, attempt - 1));
/**
 * How long a subscriber fails before /readyz says it cannot advance: past the first
 * retries (0.5 s, then 1 s, then 2 s), so one failed step that the next one gets past
 * leaves readiness green, and one that keeps failing turns it red within seconds.
 */
const FAILING_GRACE_MS = 3_000;
export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs subscribers over the event log, each from its stored checkpoint, each in at most
 * one process at a time (a session advisory lock on one shared connection; another
 * instance takes over when the holder goes). A failure never ends a loop: transient ones
 * (a dependency down) are retried with back-off for as long as they last; an event that
 * keeps failing is retried `parkAfter` times, then parked and passed.
 * Subclasses say what one step does (a projection's transaction, a reactor's calls).
 */
export abstract class SubscriptionRunner<S extends Subscriber> {
  protected readonly byName: Map<string, S>;
  private running = false;
  private loops: Promise<void>[] = [];
  protected readonly owned = new Set<string>();
  protected readonly batchSize: number;
  protected readonly idleMs: number;
  protected readonly parkAfter: number;
  protected readonly backoffMs: (attempt: number) => number;
  private readonly wakeups: WakeSignal | undefined;
  private readonly wakeLimitMs: number;
  /** per subscriber: the event being retried and how often it failed */
  private readonly attempts = new Map<string, { eventId: string; count: number }>();
  private readonly failing = new Map<string, { since: Date; error: string }>();

  protected abstract readonly kind: 'projection' | 'reactor';

  constructor(
    protected readonly pool: pg.Pool,
    protected readonly store: EventStore,
    subscribers: S[],
    protected readonly log: Logger,
    options: RunnerOptions = {},
  ) {
    this.byName = new Map(subscribers.map((s) => [s.name, s]));
    this.batchSize = options.batchSize ?? 1000;
    this.idleMs = options.idleMs ?? 50;
    this.parkAfter = Math.max(1, options.parkAfter ?? 3);
    this.backoffMs = options.backoffMs ?? defaultBackoff;
    this.wakeups = options.wakeups;
    this.wakeLimitMs = options.wakeLimitMs ?? WAKE_LIMIT_MS;
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** Processes one page for a subscriber; returns the number of events read. */
  abstract step(s: S, client: pg.PoolClient): Promise<number>;

  /** Takes one parked event again; true when it was taken this time. */
  protected abstract retryOne(s: S, event: RecordedEvent): Promise<void>;

  /** Creates the checkpoint and parked-event tables. */
  async migrate(db: Pick<pg.Pool, 'query'> = this.pool): Promise<void> {
    await db.query(CHECKPOINTS_SCHEMA);
    await db.query(PARKED_SCHEMA);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const s of this.byName.values()) this.loops.push(this.supervise(s));
  }

  /** Wakes the loops of this process that wait for these types (a rebuild to start at once). */
  protected wake(types: Iterable<string>): void {
    const list = [...types];
    // a subscriber of every event lists no type: every loop wakes
    this.wakeups?.notify(list.length > 0 ? list : undefined);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeups?.notify();
    await Promise.all(this.loops);
    this.loops = [];
    await this.beforeRelease().catch((err) =>
      this.log.warn({ error: describeError(err) }, `${this.kind} runner stopped uncleanly`),
    );
    const held = this.lockClient;
    this.lockClient = undefined;
    // destroyed, not pooled: a pooled session would keep any lock it still holds
    if (held) (await held.catch(() => undefined))?.release(true);
  }

  protected lockKey(name: string): string {
    return `${this.kind}:${name}`;
  }

  /**
   * One connection holds the advisory locks of every subscriber this process runs. If
   * it breaks, its locks are gone with it: every loop competes for its lock again.
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

  /** Every loop shares the lock connection: one query on it at a time. */
  private lockQueue: Promise<unknown> = Promise.resolve();
  private onLockClient<T>(query: () => Promise<T>): Promise<T> {
    const result = this.lockQueue.then(query, query);
    this.lockQueue = result.catch(() => {});
    return result;
  }

  private async supervise(s: S): Promise<void> {
    let transientFailures = 0;
    while (this.running) {
      try {
        const held = this.locks();
        const locks = await held;
        const r = await this.onLockClient(() =>
          locks.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [
            this.lockKey(s.name),
          ]),
        );
        if (!r.rows[0]!.ok) {
          await delay(1000); // another instance runs it
          continue;
        }
        this.owned.add(s.name);
        // another process may have run it meanwhile: what this one remembers is stale
        this.forget(s.name);
        const wait = this.waitForEvents(s);
        try {
          while (this.running && this.owned.has(s.name)) {
            const n = await this.advance(s);
            transientFailures = 0;
            if (n < this.pageSize(s)) {
              await this.afterCatchUp(s);
              if (s.gatherMs) await delay(s.gatherMs);
              await wait.next();
            }
          }
        } finally {
          wait.close();
          if (this.owned.delete(s.name) && this.lockClient === held) {
            await this.onLockClient(() =>
              locks.query('SELECT pg_advisory_unlock(hashtext($1))', [this.lockKey(s.name)]),
            ).catch(() => {});
          }
        }
      } catch (err) {
        if (!this.running) break;
        // a dependency that is back is noticed within seconds: transient waits stay short
        const wait =
          err instanceof RetryLater
            ? this.backoffMs(err.attempt)
            : Math.min(5000, 250 * 2 ** Math.min(5, transientFailures++));
        this.markFailing(s.name, err);
        const level = err instanceof RetryLater || isTransient(err) ? 'warn' : 'error';
        this.log[level](
          { [this.kind]: s.name, error: describeError(err), retryInMs: wait },
          `${this.kind} cannot advance; retrying`,
        );
        await delay(wait);
      }
    }
  }

  /**
   * One step on a pooled connection, taken at the step's first statement on it: a step
   * first reads the log through the pool, and a connection held meanwhile by every loop
   * would leave none for those reads (with more loops than the pool has connections,
   * they all waited for ever). A step that got through clears the failing mark.
   */
  async advance(s: S): Promise<number> {
    const client = lazyClient(this.pool);
    let n: number;
    try {
      n = await this.step(s, client.proxy);
    } catch (err) {
      // a connection that failed mid-step is not put back into the pool
      client.release(isTransient(err));
      throw err;
    }
    client.release(false);
    this.failing.delete(s.name);
    return n;
  }

  /** How many events a subscriber's step reads at most. */
  protected pageSize(s: S): number {
    return s.pageSize ?? this.batchSize;
  }

  /** Hook when this process takes a subscriber (again): drop what it remembered of it. */
  protected forget(_name: string): void {}

  /** Hook when the loops have ended, before the locks go (reactors save their checkpoints). */
  protected async beforeRelease(): Promise<void> {}

  /** Where a subscriber is: its stored checkpoint (a reactor this process runs is further on). */
  protected position(name: string): Promise<Position> {
    return this.checkpoint(name);
  }

  /** Hook after a subscriber caught up (projections analyze after bulk loads). */
  protected async afterCatchUp(_s: S): Promise<void> {}

  /**
   * How a subscriber waits for events: woken by appends of a type it handles (those made
   * while it was handling the last page included), or when the log's head moves (which
   * also carries it past events of other types, so its lag stays honest); polls on its
   * own only without a wake signal.
   */
  private waitForEvents(s: S): { next(): Promise<void>; close(): void } {
    const reader = this.wakeups?.reader((types) => types.some((t) => s.handles.has(t)));
    return reader
      ? { next: () => reader.wait(this.wakeLimitMs), close: () => reader.close() }
      : { next: () => delay(this.idleMs), close: () => {} };
  }

  private markFailing(name: string, err: unknown): void {
    const error = describeError(err);
    const current = this.failing.get(name);
    this.failing.set(name, { since: current?.since ?? new Date(), error });
  }

  /**
   * Counts a failure of `event`: below `parkAfter` the step must end and be retried
   * after the back-off (RetryLater is thrown); at `parkAfter` the event is to be parked
   * (returns the attempts so far).
   */
  protected failed(s: S, event: RecordedEvent, err: unknown): number {
    if (isTransient(err)) throw err;
    const current = this.attempts.get(s.name);
    const count = current?.eventId === event.id ? current.count + 1 : 1;
    if (count < this.parkAfter) {
      this.attempts.set(s.name, { eventId: event.id, count });
      throw new RetryLater(count, err);
    }
    this.attempts.delete(s.name);
    this.log.error(
      { [this.kind]: s.name, eventId: event.id, type: event.type, error: describeError(err) },
      'event parked after repeated failures',
    );
    return count;
  }

  protected park(
    db: Pick<pg.Pool, 'query'>,
    s: S,
    event: RecordedEvent,
    err: unknown,
    attempts: number,
  ): Promise<void> {
    return park(db, s.name, event, err, attempts);
  }

  async checkpoint(name: string, db: Pick<pg.Pool, 'query'> = this.pool): Promise<Position> {
    const r = await db.query<{ commit_pos: string; prepare_pos: string }>(
      'SELECT commit_pos, prepare_pos FROM projection_checkpoints WHERE name = $1',
      [name],
    );
    return r.rows[0]
      ? positionOf({ commit: r.rows[0].commit_pos, prepare: r.rows[0].prepare_pos })
      : START;
  }

  protected saveCheckpoint(db: Pick<pg.Pool, 'query'>, name: string, at: Position): Promise<void> {
    return this.saveCheckpoints(db, [{ name, at }]);
  }

  /**
   * Stores several subscribers' checkpoints in one statement; `forwardOnly` leaves one
   * that is already further on (a place saved late must not move it back). `notify`
   * names read models whose change the same statement announces on `READ_MODEL_CHANNEL`
   * (delivered at commit): one round trip less on every commit that changed something.
   */
  protected async saveCheckpoints(
    db: Pick<pg.Pool, 'query'>,
    ends: { name: string; at: Position }[],
    forwardOnly = false,
    notify: string[] = [],
  ): Promise<void> {
    if (ends.length === 0) return;
    const announce = notify.length > 0;
    await db.query(
      `${announce ? 'WITH saved AS (' : ''}INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos, updated_at)
       SELECT name, c, p, now() FROM unnest($1::text[], $2::numeric[], $3::numeric[]) AS x(name, c, p)
       ON CONFLICT (name) DO UPDATE
         SET commit_pos = excluded.commit_pos, prepare_pos = excluded.prepare_pos, updated_at = now()
         ${
           forwardOnly
             ? `WHERE (projection_checkpoints.commit_pos, projection_checkpoints.prepare_pos)
                  < (excluded.commit_pos, excluded.prepare_pos)`
             : ''
         }${announce ? `) SELECT pg_notify('${READ_MODEL_CHANNEL}', n) FROM unnest($4::text[]) n` : ''}`,
      [
        ends.map((e) => e.name),
        ends.map((e) => e.at.commit.toString()),
        ends.map((e) => e.at.prepare.toString()),
        ...(announce ? [notify] : []),
      ],
    );
  }

  /** How old the oldest event after a checkpoint is, in seconds (0 when none). */
  private async lagSeconds(checkpoint: Position): Promise<number> {
    const [next] = await this.store.readAll({ after: checkpoint, limit: 1, dataOf: [] });
    return next ? Math.max(0, (Date.now() - next.recordedAt.getTime()) / 1000) : 0;
  }

  async status(): Promise<SubscriptionStatus[]> {
    const parked = await countParked(this.pool);
    const out: SubscriptionStatus[] = [];
    for (const name of this.byName.keys()) {
      const cp = await this.position(name);
      const failing = this.failing.get(name);
      out.push({
        name,
        kind: this.kind,
        checkpoint: { commit: cp.commit.toString(), prepare: cp.prepare.toString() },
        behind: await this.store.countAfter(cp, 100_000),
        lagSeconds: Math.round(await this.lagSeconds(cp)),
        running: this.owned.has(name),
        failing: failing ? { since: failing.since.toISOString(), error: failing.error } : null,
        parked: parked.get(name) ?? 0,
      });
    }
    return out;
  }

  /**
   * Why this runner is not healthy, or [] when it is: a subscriber this process runs
   * that cannot advance, or any subscriber more than `maxLagMs` behind the log.
   */
  async problems(maxLagMs: number): Promise<string[]> {
    const out: string[] = [];
    for (const name of this.byName.keys()) {
      const failing = this.failing.get(name);
      // a step that failed once and is being retried (a conflict with another writer, a
      // moment's outage) is not yet a subscriber that cannot advance
      if (failing && Date.now() - failing.since.getTime() >= FAILING_GRACE_MS) {
        out.push(
          `${this.kind} ${name} cannot advance since ${failing.since.toISOString()}: ${failing.error}`,
        );
        continue;
      }
      const lag = await this.lagSeconds(await this.position(name));
      if (lag * 1000 > maxLagMs) out.push(`${this.kind} ${name} is ${Math.round(lag)} s behind`);
    }
    return out;
  }

  parked(name?: string, limit = 100): Promise<ParkedEvent[]> {
    return listParked(this.pool, name, limit);
  }

  /**
   * Takes parked events of a subscriber again (one, or all): each that now succeeds is
   * unparked; one that fails again stays, with the new error and one more attempt.
   */
  async retryParked(
    name: string,
    eventId?: string,
  ): Promise<{ retried: number; applied: number; stillParked: ParkedEvent[] }> {
    const s = this.byName.get(name);
    if (!s) throw new UnknownSubscriptionError(name, this.names);
    const parked = (await listParked(this.pool, name, 10_000)).filter(
      (p) => eventId === undefined || p.eventId === eventId,
    );
    let applied = 0;
    for (const p of parked) {
      const event = (await this.store.readStream(p.streamId)).find((e) => e.id === p.eventId);
      try {
        if (!event) throw new Error(`event ${p.eventId} is no longer in stream ${p.streamId}`);
        await this.retryOne(s, event);
        await unpark(this.pool, name, p.eventId);
        applied++;
      } catch (err) {
        if (isTransient(err)) throw err;
        await recordRetryFailure(this.pool, name, p.eventId, err);
      }
    }
    const ids = new Set(parked.map((p) => p.eventId));
    const stillParked = (await listParked(this.pool, name, 10_000)).filter((p) =>
      ids.has(p.eventId),
    );
    return { retried: parked.length, applied, stillParked };
  }
}

export class UnknownSubscriptionError extends Error {
  override name = 'UnknownSubscriptionError';
  constructor(name: string, known: string[]) {
    super(`unknown projection or reactor ${name}; known: ${known.join(', ')}`);
  }
}

/**
 * A pool client taken from the pool at its first query (steps use only `query`), and
 * given back by `release`, if it was taken.
 */
function lazyClient(pool: pg.Pool): { proxy: pg.PoolClient; release(destroy: boolean): void } {
  let taken: Promise<pg.PoolClient> | undefined;
  let client: pg.PoolClient | undefined;
  const take = () => {
    taken ??= pool.connect().then((c) => {
      client = c;
      return c;
    });
    return taken;
  };
  const proxy = {
    // biome-ignore lint/suspicious/noExplicitAny: forwards pg's overloaded query as it is
    query: (...args: any[]) => take().then((c) => (c.query as (...a: any[]) => unknown)(...args)),
  } as unknown as pg.PoolClient;
  return {
    proxy,
    release(destroy) {
      if (client) client.release(destroy || undefined);
      else if (taken) void taken.then((c) => c.release(destroy || undefined)).catch(() => {});
    },
  };
}

import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { Projection } from '../../projections/projection.ts';
import { ProjectionRunner } from '../../projections/projection-runner.ts';
import { connectPostgres, type Database } from '../../src/db/database.ts';
import type { NewEvent } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { RetryLater } from '../../src/subscriptions/subscription-runner.ts';
import { createDatabase } from '../helpers/postgres-cluster.ts';

const log = pino({ level: 'silent' });

/**
 * Until readers can see a position: another database's open transaction holds the horizon back for
 * a moment.
 */
async function visible(store: PostgresEventStore, position: { commit: bigint; prepare: bigint }) {
  for (let i = 0; i < 500; i++) {
    const head = await store.headPosition();
    if (
      head.commit > position.commit ||
      (head.commit === position.commit && head.prepare >= position.prepare)
    )
      return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('position never became visible');
}
const ev = (type: string): NewEvent => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  data: {},
  metadata: {},
});

/** Records every handled event under its id: a second application would violate the key. */
const counting = (failOn?: string): Projection => ({
  name: 'counting',
  tables: ['test_seen'],
  schema: 'CREATE TABLE IF NOT EXISTS test_seen (event_id uuid PRIMARY KEY, type text NOT NULL)',
  handles: new Set(['Counted', 'Poison']),
  async apply(tx, events) {
    for (const e of events) {
      await tx.query('INSERT INTO test_seen (event_id, type) VALUES ($1, $2)', [e.id, e.type]);
      if (e.type === failOn) throw new Error('poison');
    }
  },
});

describe('projection runner (PostgreSQL)', () => {
  let url: string;
  let db: Database;
  let store: PostgresEventStore;
  const seen = async () =>
    Number((await db.pool.query('SELECT count(*) AS n FROM test_seen')).rows[0].n);

  beforeAll(async () => {
    url = await createDatabase(inject('postgresUrl'));
    db = await connectPostgres(url);
    await PostgresEventStore.migrate(db.pool);
    store = new PostgresEventStore(db.pool);
  });
  afterAll(async () => db?.close());

  it('applies handled events once, skips others, and moves the checkpoint in the same transaction', async () => {
    const runner = new ProjectionRunner(db.pool, store, [counting()], log, { batchSize: 100 });
    await runner.migrate();
    const first = await store.append(
      `S-${randomUUID()}`,
      [ev('Counted'), ev('Other'), ev('Counted')],
      'no_stream',
    );
    await visible(store, first.position);
    const client = await db.pool.connect();
    try {
      expect(await runner.step(counting(), client)).toBe(3);
      expect(await seen()).toBe(2);
      expect((await runner.status())[0]).toMatchObject({ name: 'counting', behind: 0, parked: 0 });
    } finally {
      client.release();
    }
  });

  it('retries an event that fails, then parks it and applies the rest of its page; retrying after a fix applies it', async () => {
    const poisoned = counting('Poison');
    const runner = new ProjectionRunner(db.pool, store, [poisoned], log, {
      batchSize: 100,
      parkAfter: 2,
    });
    const before = await seen();
    const from = await runner.checkpoint('counting');
    const poison = ev('Poison');
    const after = ev('Counted');
    await visible(
      store,
      (await store.append(`S-${randomUUID()}`, [ev('Counted'), poison, after], 'no_stream'))
        .position,
    );
    const client = await db.pool.connect();
    try {
      // first failure: the whole page rolls back and is retried later
      await expect(runner.step(poisoned, client)).rejects.toThrow(RetryLater);
      expect(await seen()).toBe(before);
      expect(await runner.checkpoint('counting')).toEqual(from);
      // second failure: parked, the others applied, the checkpoint past the page
      expect(await runner.step(poisoned, client)).toBe(3);
      expect(await seen()).toBe(before + 2);
      expect(await runner.checkpoint('counting')).not.toEqual(from);
      const parked = await runner.parked('counting');
      expect(parked).toHaveLength(1);
      expect(parked[0]).toMatchObject({ eventId: poison.id, type: 'Poison', attempts: 2 });
      expect(parked[0]!.error).toContain('poison');
      expect((await runner.status())[0]).toMatchObject({ parked: 1, behind: 0 });
      // retried while still broken: stays parked, one more attempt
      const again = await runner.retryParked('counting', poison.id);
      expect(again).toMatchObject({ retried: 1, applied: 0 });
      expect(again.stillParked[0]!.attempts).toBe(3);
    } finally {
      client.release();
    }
    // after the fix
    const fixed = new ProjectionRunner(db.pool, store, [counting()], log);
    expect(await fixed.retryParked('counting')).toMatchObject({
      retried: 1,
      applied: 1,
      stillParked: [],
    });
    expect(await seen()).toBe(before + 3);
    expect(await fixed.parked('counting')).toEqual([]);
  });

  it('does not park on a missing table: the projection stops, says why, and goes on once it is back', async () => {
    const runner = new ProjectionRunner(db.pool, store, [counting()], log, {
      idleMs: 10,
      parkAfter: 1,
      backoffMs: () => 50,
    });
    await db.pool.query('ALTER TABLE test_seen RENAME TO test_seen_away');
    const e = ev('Counted');
    await store.append(`S-${randomUUID()}`, [e], 'no_stream');
    runner.start();
    try {
      let problems: string[] = [];
      // reported once it has failed for a few seconds (a retry may get past one failure)
      for (let i = 0; i < 600 && problems.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        problems = await runner.problems(60_000);
      }
      expect(problems.join()).toMatch(/projection counting cannot advance since .*test_seen/);
      expect(await runner.parked('counting')).toEqual([]);
      await db.pool.query('ALTER TABLE test_seen_away RENAME TO test_seen');
      const deadline = Date.now() + 10_000;
      while ((await runner.problems(60_000)).length > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(await runner.problems(60_000)).toEqual([]);
      const r = await db.pool.query('SELECT 1 FROM test_seen WHERE event_id = $1', [e.id]);
      expect(r.rowCount).toBe(1);
    } finally {
      await runner.stop();
    }
  });

  it('runs each projection in one process at a time, and another takes over when it stops', async () => {
    const db2 = await connectPostgres(url);
    const a = new ProjectionRunner(db.pool, store, [counting()], log, { idleMs: 10 });
    const b = new ProjectionRunner(db2.pool, new PostgresEventStore(db2.pool), [counting()], log, {
      idleMs: 10,
    });
    a.start();
    await new Promise((r) => setTimeout(r, 200));
    b.start();
    const before = await seen();
    const events = Array.from({ length: 50 }, () => ev('Counted'));
    for (const e of events) await store.append(`S-${randomUUID()}`, [e], 'no_stream');
    const running = async () => [(await a.status())[0]!.running, (await b.status())[0]!.running];
    const deadline = Date.now() + 10_000;
    while ((await seen()) < before + 50 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(await seen()).toBe(before + 50);
    expect(await running()).toEqual([true, false]);
    await a.stop();
    const more = Array.from({ length: 10 }, () => ev('Counted'));
    for (const e of more) await store.append(`S-${randomUUID()}`, [e], 'no_stream');
    const deadline2 = Date.now() + 10_000;
    while ((await seen()) < before + 60 && Date.now() < deadline2)
      await new Promise((r) => setTimeout(r, 50));
    expect(await seen()).toBe(before + 60);
    expect((await b.status())[0]!.running).toBe(true);
    await b.stop();
    await db2.close();
  });

  it('rebuilds: drops the tables, resets the checkpoint and replays to the same content', async () => {
    const runner = new ProjectionRunner(db.pool, store, [counting()], log);
    const before = (await db.pool.query('SELECT event_id FROM test_seen ORDER BY event_id')).rows;
    await runner.reset('counting');
    expect(await seen()).toBe(0);
    expect((await runner.status())[0]!.behind).toBeGreaterThan(0);
    expect(await runner.catchUp('counting')).toBe(true);
    expect((await db.pool.query('SELECT event_id FROM test_seen ORDER BY event_id')).rows).toEqual(
      before,
    );
    expect((await runner.status())[0]!.behind).toBe(0);
  });

  it('rebuilds with a poisoned event in the log: it is parked again and everything else replays', async () => {
    const all = (await db.pool.query('SELECT count(*)::int AS n FROM test_seen')).rows[0].n;
    const runner = new ProjectionRunner(db.pool, store, [counting('Poison')], log, {
      parkAfter: 1,
    });
    await runner.reset('counting');
    expect(await runner.parked('counting')).toEqual([]);
    expect(await runner.catchUp('counting')).toBe(true);
    expect(await seen()).toBe(all - 1); // the poison event, applied once after its fix, is out again
    expect((await runner.parked('counting')).map((p) => p.type)).toEqual(['Poison']);
    expect((await runner.status())[0]!.behind).toBe(0);
  });

  it('waits for a position (read-your-writes) and gives up after the timeout', async () => {
    const runner = new ProjectionRunner(db.pool, store, [counting()], log, { idleMs: 10 });
    const { position } = await store.append(`S-${randomUUID()}`, [ev('Counted')], 'no_stream');
    expect(await runner.waitFor('counting', position, 100)).toBe(false);
    runner.start();
    expect(await runner.waitFor('counting', position, 5000)).toBe(true);
    await runner.stop();
  });

  it('knows a projection woken only by its own types has taken a position past others', async () => {
    // as the service runs it: woken by appends of the types it handles, never polling
    const runner = new ProjectionRunner(db.pool, store, [counting()], log, {
      wakeups: store.appended,
    });
    runner.start();
    const { position } = await store.append(`S-${randomUUID()}`, [ev('Counted')], 'no_stream');
    expect(await runner.waitFor('counting', position, 5000)).toBe(true);
    const other = await store.append(`S-${randomUUID()}`, [ev('NotCounted')], 'no_stream');
    const began = Date.now();
    // it knows at once, or only when the wait ends: a wait far longer than knowing takes
    expect(await runner.waitFor('counting', other.position, 30_000, { readsOnly: true })).toBe(
      true,
    );
    expect(Date.now() - began).toBeLessThan(15_000);
    await runner.stop();
  });

  it('waits for the commit of an event of its types before a position, without asking the log again', async () => {
    const runner = new ProjectionRunner(db.pool, store, [counting()], log, {
      wakeups: store.appended,
    });
    await runner.catchUp('counting');
    await store.append(`S-${randomUUID()}`, [ev('Counted')], 'no_stream');
    const other = await store.append(`S-${randomUUID()}`, [ev('NotCounted')], 'no_stream');
    // the projection is not running: the log holds an event it has yet to take
    const asked = vi.spyOn(
      runner as unknown as { nothingToTake: (...a: unknown[]) => Promise<unknown> },
      'nothingToTake',
    );
    const waiting = runner.waitFor('counting', other.position, 30_000, { readsOnly: true });
    await new Promise((r) => setTimeout(r, 1000));
    // its checkpoint is read every 50 ms meanwhile, the log asked once
    expect(asked).toHaveBeenCalledTimes(1);
    const began = Date.now();
    runner.start();
    expect(await waiting).toBe(true);
    expect(Date.now() - began).toBeLessThan(15_000);
    await runner.stop();
  });

  it('waits for an append whose last event is of its types without asking the log', async () => {
    const runner = new ProjectionRunner(db.pool, store, [counting()], log, {
      wakeups: store.appended,
    });
    await runner.catchUp('counting');
    // an event before it, of its types, that the projection has not taken either: its
    // commit wakes the wait first, which then waits on for the append's own
    await store.append(`S-${randomUUID()}`, [ev('Counted')], 'no_stream');
    const { position } = await store.append(`S-${randomUUID()}`, [ev('Counted')], 'no_stream');
    const asked = vi.spyOn(
      runner as unknown as { nothingToTake: (...a: unknown[]) => Promise<unknown> },
      'nothingToTake',
    );
    const waiting = runner.waitFor('counting', position, 5000, {
      readsOnly: true,
      lastType: 'Counted',
    });
    await new Promise((r) => setTimeout(r, 300));
    runner.start();
    expect(await waiting).toBe(true);
    expect(asked).not.toHaveBeenCalled();
    // a type it does not take says nothing: the log is asked as before (stopped, the
    // projection cannot reach the position by itself meanwhile)
    await runner.stop();
    const other = await store.append(`S-${randomUUID()}`, [ev('NotCounted')], 'no_stream');
    expect(
      await runner.waitFor('counting', other.position, 5000, {
        readsOnly: true,
        lastType: 'NotCounted',
      }),
    ).toBe(true);
    expect(asked).toHaveBeenCalledTimes(1);
  });

  it('rebuilds a projection from the first event when its version changes, and only then', async () => {
    const name = `versioned_${randomUUID().slice(0, 8)}`;
    const versioned = (version: number): Projection => ({
      name,
      version,
      tables: [`test_${name}`],
      schema: `CREATE TABLE IF NOT EXISTS test_${name} (event_id uuid PRIMARY KEY)`,
      handles: new Set(['Versioned']),
      async apply(tx, events) {
        for (const e of events) await tx.query(`INSERT INTO test_${name} VALUES ($1)`, [e.id]);
      },
    });
    const rows = async () =>
      Number((await db.pool.query(`SELECT count(*) AS n FROM test_${name}`)).rows[0].n);
    const builtVersion = async () =>
      (await db.pool.query('SELECT version FROM projection_versions WHERE name = $1', [name]))
        .rows[0]?.version;
    const run = async (p: Projection) => {
      const runner = new ProjectionRunner(db.pool, store, [p], log, { batchSize: 1000 });
      await runner.migrate();
      const client = await db.pool.connect();
      try {
        while ((await runner.step(p, client)) > 0);
      } finally {
        client.release();
      }
    };
    await visible(
      store,
      (await store.append(`S-${randomUUID()}`, [ev('Versioned'), ev('Versioned')], 'no_stream'))
        .position,
    );
    // never built: made at its version, no rebuild needed
    await run(versioned(2));
    expect(await builtVersion()).toBe(2);
    expect(await rows()).toBe(2);
    // a row only a rebuild would remove
    await db.pool.query(`INSERT INTO test_${name} VALUES ($1)`, [randomUUID()]);
    await run(versioned(2));
    expect(await rows()).toBe(3);
    // a new version: dropped, replayed from the first event
    await run(versioned(3));
    expect(await builtVersion()).toBe(3);
    expect(await rows()).toBe(2);
  });

  it('runs more projections than the pool has connections without waiting for ever', async () => {
    // each step reads the log through the pool; a step that held a connection while
    // reading left none once every connection was held (the embedded default froze so)
    const small = await connectPostgres(url, 3);
    try {
      const many: Projection[] = Array.from({ length: 6 }, (_, i) => ({
        name: `many-${i}`,
        tables: [`test_many_${i}`],
        schema: `CREATE TABLE IF NOT EXISTS test_many_${i} (event_id uuid PRIMARY KEY)`,
        handles: new Set(['Many']),
        async apply(tx, events) {
          for (const e of events)
            await tx.query(`INSERT INTO test_many_${i} (event_id) VALUES ($1)`, [e.id]);
        },
      }));
      const smallStore = new PostgresEventStore(small.pool);
      const runner = new ProjectionRunner(small.pool, smallStore, many, log, { batchSize: 1 });
      await runner.migrate();
      const appended = await smallStore.append(
        `M-${randomUUID()}`,
        Array.from({ length: 5 }, () => ev('Many')),
        'no_stream',
      );
      await visible(smallStore, appended.position);
      const steps = Promise.all(
        many.map(async (p) => {
          while ((await runner.advance(p)) > 0);
        }),
      );
      const outcome = await Promise.race([
        steps.then(() => 'done'),
        new Promise((r) => setTimeout(() => r('stuck'), 20_000)),
      ]);
      expect(outcome).toBe('done');
      for (let i = 0; i < many.length; i++) {
        const r = await small.pool.query(`SELECT count(*)::int AS n FROM test_many_${i}`);
        expect(r.rows[0].n).toBe(5);
      }
    } finally {
      await small.close();
    }
  }, 60_000);
  it('commits the pages of projections woken together in one transaction; one that fails holds none back', async () => {
    const together = (i: number, failOn?: string): Projection => ({
      name: `together-${i}`,
      tables: [`test_together_${i}`],
      schema: `CREATE TABLE IF NOT EXISTS test_together_${i} (event_id uuid PRIMARY KEY, tx bigint NOT NULL)`,
      handles: new Set(['Together', 'TogetherPoison']),
      async apply(tx, events) {
        for (const e of events) {
          if (e.type === failOn) throw new Error('poison');
          await tx.query(`INSERT INTO test_together_${i} VALUES ($1, txid_current())`, [e.id]);
        }
      },
    });
    const all = [together(0), together(1), together(2, 'TogetherPoison')];
    const runner = new ProjectionRunner(db.pool, store, all, log, {
      batchSize: 1000,
      parkAfter: 1,
    });
    await runner.migrate();
    const drain = () =>
      Promise.all(
        all.map(async (p) => {
          while ((await runner.advance(p)) > 0);
        }),
      );
    await drain();
    const appendAndDrain = async (events: NewEvent[]) => {
      const { position } = await store.append(`T-${randomUUID()}`, events, 'no_stream');
      await visible(store, position);
      // woken by one append: each has its checkpoint in memory and reads the same page
      await drain();
    };
    const rows = async (i: number) =>
      (
        await db.pool.query<{ event_id: string; tx: string }>(
          `SELECT event_id, tx FROM test_together_${i} ORDER BY event_id`,
        )
      ).rows;
    const first = [ev('Together'), ev('Together')];
    await appendAndDrain(first);
    const [zero, one, two] = [await rows(0), await rows(1), await rows(2)];
    expect(zero.map((r) => r.event_id).sort()).toEqual(first.map((e) => e.id).sort());
    expect(new Set(zero.map((r) => r.tx)).size).toBe(1);
    // all three in the one transaction
    expect(one).toEqual(zero);
    expect(two).toEqual(zero);
    // a page one of them fails on: the others apply it, the failing one parks its poison
    // and applies the rest
    const poison = ev('TogetherPoison');
    const second = [ev('Together'), poison, ev('Together')];
    await appendAndDrain(second);
    const ids = (r: { event_id: string }[]) => r.map((x) => x.event_id).sort();
    expect(ids(await rows(0))).toEqual([...first, ...second].map((e) => e.id).sort());
    expect(ids(await rows(1))).toEqual(ids(await rows(0)));
    expect(ids(await rows(2))).toEqual(
      [...first, ...second]
        .filter((e) => e !== poison)
        .map((e) => e.id)
        .sort(),
    );
    expect((await runner.parked('together-2')).map((e) => e.eventId)).toEqual([poison.id]);
    // and the next page is shared again
    const third = [ev('Together')];
    await appendAndDrain(third);
    const txOf = async (i: number) =>
      (
        await db.pool.query<{ tx: string }>(
          `SELECT tx FROM test_together_${i} WHERE event_id = $1`,
          [third[0]!.id],
        )
      ).rows[0]?.tx;
    expect(await txOf(0)).toBeDefined();
    expect(await txOf(1)).toBe(await txOf(0));
    for (const s of await runner.status()) expect(s.behind).toBe(0);
  });
});

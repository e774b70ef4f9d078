import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectPostgres, type Database } from '../../src/db/database.ts';
import type { RecordedEvent } from '../../src/eventstore/port.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { ReactionRunner } from '../../src/reactions/reactor.ts';
import { createDatabase } from '../helpers/postgres-cluster.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('reaction runner (PostgreSQL)', () => {
  let db: Database;
  let store: PostgresEventStore;

  beforeAll(async () => {
    db = await connectPostgres(await createDatabase(inject('postgresUrl')));
    await PostgresEventStore.migrate(db.pool);
    store = new PostgresEventStore(db.pool);
  });
  afterAll(async () => db?.close());

  it('takes events appended while it reacts at once, not after its wait limit', async () => {
    const reacted = new Map<string, number>();
    const runner = new ReactionRunner(
      db.pool,
      store,
      [
        {
          name: 'slow-starter',
          handles: new Set(['WorkRequested']),
          async react(e: RecordedEvent) {
            await sleep(400); // a workflow start on a busy server
            reacted.set(e.id, Date.now());
          },
        },
      ],
      pino({ level: 'silent' }),
      // a reader looks on its own only after a minute: what reacts sooner was woken
      { wakeups: store.appended, wakeLimitMs: 60_000 },
    );
    await runner.migrate();
    // other readers of the process keep waiting meanwhile, so the log's head is known and
    // probing tells nobody of appends made while the reactor was busy
    let others = true;
    const otherReaders = (async () => {
      while (others) await store.appended.wait(1000, (types) => types.includes('Unrelated'));
    })();
    runner.start();
    try {
      const append = async () => {
        const id = randomUUID();
        await store.append(
          `work-${id}`,
          [{ id, type: 'WorkRequested', schemaVersion: 1, data: {}, metadata: {} }],
          'no_stream',
        );
        return { id, at: Date.now() };
      };
      const first = await append();
      await sleep(150); // the reactor is reacting to the first now
      const during = [await append(), await append()];
      const deadline = Date.now() + 40_000;
      while (during.some((d) => !reacted.has(d.id)) && Date.now() < deadline) await sleep(20);
      expect(reacted.has(first.id)).toBe(true);
      for (const d of during) {
        expect(reacted.has(d.id)).toBe(true);
        // two reactions of 400 ms each are ahead of it at most (about 1 s); without the
        // wake it would have waited for the minute's look
        expect(reacted.get(d.id)! - d.at).toBeLessThan(30_000);
      }
    } finally {
      others = false;
      await runner.stop();
      await otherReaders;
    }
  });
  it('saves the checkpoints of its reactors together, soon after their pages, and at stop', async () => {
    const reacted: string[] = [];
    const reactor = (name: string) => ({
      name,
      handles: new Set(['Saved']),
      async react(e: RecordedEvent) {
        reacted.push(`${name}:${e.id}`);
      },
    });
    const runner = new ReactionRunner(
      db.pool,
      store,
      [reactor('saving-a'), reactor('saving-b')],
      pino({ level: 'silent' }),
      { wakeups: store.appended },
    );
    const stored = async () =>
      (
        await db.pool.query<{ name: string; commit: string; prepare: string; updated_at: Date }>(
          `SELECT name, commit_pos::text AS commit, prepare_pos::text AS prepare, updated_at
           FROM projection_checkpoints WHERE name LIKE 'saving-%' ORDER BY name`,
        )
      ).rows;
    const append = async () => {
      const id = randomUUID();
      const r = await store.append(
        `saved-${id}`,
        [{ id, type: 'Saved', schemaVersion: 1, data: {}, metadata: {} }],
        'no_stream',
      );
      return { id, position: r.position };
    };
    runner.start();
    try {
      const first = await append();
      const deadline = Date.now() + 10_000;
      const at = (p: { commit: bigint; prepare: bigint }) => ({
        commit: p.commit.toString(),
        prepare: p.prepare.toString(),
      });
      while (reacted.length < 2 && Date.now() < deadline) await sleep(10);
      // both reacted; their checkpoints follow within the save interval, in one statement
      while (
        (await stored()).filter((r) => r.commit === at(first.position).commit).length < 2 &&
        Date.now() < deadline
      )
        await sleep(20);
      const saved = await stored();
      expect(saved.map((r) => ({ commit: r.commit, prepare: r.prepare }))).toEqual([
        at(first.position),
        at(first.position),
      ]);
      expect(saved[0]!.updated_at.getTime()).toBe(saved[1]!.updated_at.getTime());
      // the status of a reactor this process runs is where it is, saved or not yet
      const second = await append();
      while (reacted.length < 4 && Date.now() < deadline) await sleep(5);
      for (const s of await runner.status()) expect(s.behind).toBe(0);
      await runner.stop();
      expect((await stored()).map((r) => ({ commit: r.commit, prepare: r.prepare }))).toEqual([
        at(second.position),
        at(second.position),
      ]);
    } finally {
      await runner.stop();
    }
    expect(reacted).toHaveLength(4);
  });
});

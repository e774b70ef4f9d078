import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { STREAM_CHANNEL } from '../../src/db/change-feed.ts';
import { connectPostgres } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { createDatabase } from '../helpers/postgres-cluster.ts';
import { auditTreeContract } from './audit-tree.contract.ts';
import { eventStoreContract } from './eventstore.contract.ts';

eventStoreContract('PostgreSQL', async () => {
  const db = await connectPostgres(await createDatabase(inject('postgresUrl')), 12);
  await PostgresEventStore.migrate(db.pool);
  const store = new PostgresEventStore(db.pool);
  return { store, cleanup: () => db.close() };
});

auditTreeContract('PostgreSQL', async () => {
  const db = await connectPostgres(await createDatabase(inject('postgresUrl')), 12);
  await PostgresEventStore.migrate(db.pool);
  return { store: new PostgresEventStore(db.pool), pool: db.pool, cleanup: () => db.close() };
});

// the tree where the events are not (as with EventStoreDB): it keeps its own index of ids
auditTreeContract('PostgreSQL, the tree in a database of its own', async () => {
  const events = await connectPostgres(await createDatabase(inject('postgresUrl')), 12);
  const reads = await connectPostgres(await createDatabase(inject('postgresUrl')), 4);
  await PostgresEventStore.migrate(events.pool);
  return {
    store: new PostgresEventStore(events.pool),
    pool: reads.pool,
    async cleanup() {
      await events.close();
      await reads.close();
    },
  };
});

describe('PostgreSQL event store: change notifications', () => {
  it('notifies appends to the streams it was told of, at commit, and no others', async () => {
    const url = await createDatabase(inject('postgresUrl'));
    const db = await connectPostgres(url, 4);
    const listener = new pg.Client({ connectionString: url });
    try {
      await PostgresEventStore.migrate(db.pool, ['Label-', "Odd'Name-"]);
      // migrating again with the same prefixes keeps the one trigger
      await PostgresEventStore.migrate(db.pool, ["Odd'Name-", 'Label-']);
      const triggers = await db.pool.query(
        "SELECT tgname FROM pg_trigger WHERE tgname LIKE 'es_events_notify_%'",
      );
      expect(triggers.rowCount).toBe(1);
      const local: string[] = [];
      const store = new PostgresEventStore(db.pool, (id) => local.push(id));
      await listener.connect();
      const heard: string[] = [];
      listener.on('notification', (n) => heard.push(n.payload ?? ''));
      await listener.query(`LISTEN ${STREAM_CHANNEL}`);
      const event = () => ({
        id: randomUUID(),
        type: 'Happened',
        schemaVersion: 1,
        data: {},
        metadata: {},
      });
      await store.append('Order-1', [event()], 'no_stream');
      await store.append('Label-1', [event(), event()], 'no_stream');
      await store.append("Odd'Name-1", [event()], 'no_stream');
      await listener.query('SELECT 1'); // notifications sent before this answer have arrived
      expect(heard).toEqual(['Label-1', "Odd'Name-1"]);
      // this process is told of every append, synchronously
      expect(local).toEqual(['Order-1', 'Label-1', "Odd'Name-1"]);
    } finally {
      await listener.end();
      await db.close();
    }
  });
});

describe('PostgreSQL event store: waking readers of another process', () => {
  it("wakes a reader of the appended type within the probe's time, and not a reader of other types", async () => {
    const url = await createDatabase(inject('postgresUrl'));
    // two stores on two pools: two processes, as far as their wake signals can tell
    const here = await connectPostgres(url, 2);
    const there = await connectPostgres(url, 2);
    try {
      await PostgresEventStore.migrate(here.pool);
      const writer = new PostgresEventStore(here.pool);
      const reader = new PostgresEventStore(there.pool);
      const wakes = (type: string, limitMs: number) => {
        const began = Date.now();
        return reader.appended
          .wait(limitMs, (types) => types.includes(type))
          .then(() => Date.now() - began);
      };
      // the probe learns the head first
      await reader.appended.wait(300);
      // woken at once, or at the end of a wait far longer than a wake takes
      const forIt = wakes('Wanted', 30_000);
      const forOther = wakes('Unrelated', 4000);
      await new Promise((r) => setTimeout(r, 100));
      await writer.append(
        `W-${randomUUID()}`,
        [{ id: randomUUID(), type: 'Wanted', schemaVersion: 1, data: {}, metadata: {} }],
        'no_stream',
      );
      expect(await forIt).toBeLessThan(15_000);
      expect(await forOther).toBeGreaterThanOrEqual(3900); // its own time limit
    } finally {
      await here.close();
      await there.close();
    }
  }, 30_000);
});

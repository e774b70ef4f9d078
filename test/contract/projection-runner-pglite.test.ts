import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Projection } from '../../projections/projection.ts';
import { ProjectionRunner } from '../../projections/projection-runner.ts';
import { type Database, openPglite } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';

const ev = (type: string) => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  data: {},
  metadata: {},
});

/**
 * The embedded database runs one transaction at a time for every connection: a runner
 * that sets a bad event aside (a savepoint rolled back inside its transaction) must not
 * leave it thinking the transaction ended, or every other statement waits for ever.
 */
describe('projection runner on the embedded database', () => {
  let db: Database;
  let store: PostgresEventStore;

  beforeAll(async () => {
    db = await openPglite(mkdtempSync(path.join(os.tmpdir(), 'pglite-runner-')));
    await PostgresEventStore.migrate(db.pool);
    store = new PostgresEventStore(db.pool);
  }, 60_000);
  afterAll(async () => db?.close());

  it('parks a bad event and keeps answering other connections meanwhile', async () => {
    const poisoned: Projection = {
      name: 'poisoned-embedded',
      tables: ['test_embedded_seen'],
      schema: 'CREATE TABLE IF NOT EXISTS test_embedded_seen (event_id uuid PRIMARY KEY)',
      handles: new Set(['Counted', 'Poison']),
      async apply(tx, events) {
        for (const e of events) {
          await tx.query('INSERT INTO test_embedded_seen (event_id) VALUES ($1)', [e.id]);
          if (e.type === 'Poison') throw new Error('poison');
        }
      },
    };
    const runner = new ProjectionRunner(db.pool, store, [poisoned], pino({ level: 'silent' }), {
      batchSize: 100,
      parkAfter: 1,
    });
    await runner.migrate();
    await store.append(
      `S-${randomUUID()}`,
      [ev('Counted'), ev('Poison'), ev('Counted')],
      'no_stream',
    );
    // other connections keep asking while the runner isolates the bad event
    let answered = 0;
    let asking = true;
    const others = (async () => {
      while (asking) {
        await db.pool.query('SELECT 1');
        answered++;
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    const outcome = await Promise.race([
      runner.advance(poisoned).then(() => 'done'),
      new Promise((r) => setTimeout(() => r('stuck'), 15_000)),
    ]);
    asking = false;
    expect(outcome).toBe('done');
    await others;
    expect(answered).toBeGreaterThan(0);
    const seen = await db.pool.query('SELECT count(*)::int AS n FROM test_embedded_seen');
    expect(seen.rows[0].n).toBe(2);
    expect(await runner.parked('poisoned-embedded')).toHaveLength(1);
  }, 60_000);
});

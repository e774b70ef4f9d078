import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openPglite } from '../../src/db/database.ts';

/**
 * The embedded database's pool lets one statement through at a time. A statement must
 * not hold that turn while it waits for a connection: with every connection held by
 * someone waiting for the turn, nothing would move again.
 */
describe('the embedded database pool with every connection taken', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPglite(mkdtempSync(path.join(os.tmpdir(), 'pglite-pool-')));
  }, 60_000);
  afterAll(async () => db?.close());

  it('answers a pool query that waits for a connection, and the holders too', async () => {
    const held: pg.PoolClient[] = [];
    for (let i = 0; i < 16; i++) held.push(await db.pool.connect());
    // waits for a connection: none is free until a holder gives one back
    const waiting = db.pool.query('SELECT 42 AS n');
    await new Promise((r) => setTimeout(r, 100));
    // each holder asks once more, then gives its connection back
    const holders = held.map(async (c, i) => {
      await c.query('SELECT $1::int AS i', [i]);
      c.release();
    });
    const outcome = await Promise.race([
      Promise.all([waiting, ...holders]).then(() => 'done'),
      new Promise((r) => setTimeout(() => r('stuck'), 10_000)),
    ]);
    expect(outcome).toBe('done');
    expect((await waiting).rows[0].n).toBe(42);
  }, 30_000);
});

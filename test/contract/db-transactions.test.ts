import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectPostgres, type Database, openPglite } from '../../src/db/database.ts';
import { type PostgresCluster, startPostgresCluster } from '../helpers/postgres-cluster.ts';

/**
 * The pool counts the transactions the server ended (`db_transactions_total`): a
 * statement of its own is one, BEGIN to COMMIT or ROLLBACK is one, a failed statement
 * outside a transaction is one; statements inside a transaction are not counted again.
 */
describe.each(['postgres', 'pglite'] as const)('transactions counted on %s', (kind) => {
  let cluster: PostgresCluster | undefined;
  let db: Database;
  beforeAll(async () => {
    if (kind === 'postgres') {
      cluster = await startPostgresCluster();
      db = await connectPostgres(cluster.url, 4);
    } else db = await openPglite(mkdtempSync(path.join(os.tmpdir(), 'pglite-count-')));
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    cluster?.stop();
  });

  it('counts each ended transaction once, as it ends', async () => {
    const before = db.transactions();
    await db.pool.query('SELECT 1');
    await db.pool.query('SELECT 2');
    expect(db.transactions() - before).toBe(2);

    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT 1');
      await client.query('SELECT 2');
      expect(db.transactions() - before).toBe(2);
      await client.query('COMMIT');
      expect(db.transactions() - before).toBe(3);

      await client.query('BEGIN');
      await expect(client.query('SELECT 1/0')).rejects.toThrow();
      await client.query('ROLLBACK');
      expect(db.transactions() - before).toBe(4);
    } finally {
      client.release();
    }
    await expect(db.pool.query('SELECT nothing FROM nowhere')).rejects.toThrow();
    // pg rejects at the error; the server's ReadyForQuery, which ends the count, follows it
    await vi.waitFor(() => expect(db.transactions() - before).toBe(5), { timeout: 1000 });
    await new Promise((r) => setTimeout(r, 50));
    expect(db.transactions() - before).toBe(5);
  });
});

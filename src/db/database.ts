import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { serializedPool } from './serialized-pool.ts';

// int8 columns (positions, revisions, counts) come back as strings; callers convert.

export interface Database {
  kind: 'postgres' | 'pglite';
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * A connection that breaks emits `error` on its client, checked out or idle; without a
 * listener that would end the process. Every client gets one: the failure then surfaces
 * as the rejected query of whoever uses it, and the pool replaces the connection.
 */
function survivable(pool: pg.Pool): pg.Pool {
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

export async function connectPostgres(url: string, max = 20): Promise<Database> {
  const pool = survivable(
    new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000 }),
  );
  await pool.query('SELECT 1');
  return { kind: 'postgres', pool, close: () => pool.end() };
}

/**
 * The embedded default: PGlite in this process, data kept in a folder, served over a
 * loopback socket so the same pg.Pool code runs on it. PGlite runs one transaction at
 * a time across all connections, so code must never wait for another connection while
 * it holds a transaction.
 */
export async function openPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const dir = path.join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  // pg_trgm: the trigram index behind substring SKU search
  const db = await PGlite.create(dir, { extensions: { pg_trgm } });
  const port = await freePort();
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections: 16 });
  await server.start();
  const raw = new pg.Pool({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'postgres',
    max: 16,
  });
  survivable(raw);
  const pool = serializedPool(raw);
  await pool.query('SELECT 1');
  return {
    kind: 'pglite',
    pool,
    async close() {
      await pool.end();
      await server.stop();
      await db.close();
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Runs fn in a transaction on one client of the pool. */
export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

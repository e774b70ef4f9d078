import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { serializedPool } from './serialized-pool.ts';

// int8 columns (positions, revisions, counts) come back as strings; callers convert.

export interface Database {
  kind: 'postgres' | 'pglite';
  pool: pg.Pool;
  /** transactions this process has ended on the pool so far */
  transactions(): number;
  close(): Promise<void>;
}

/**
 * Counts the pool's transactions as the server ends them: each ReadyForQuery that finds
 * the connection outside a transaction again follows a statement of its own or a
 * COMMIT or ROLLBACK. Exact and at once, where PostgreSQL's own statistics reach
 * pg_stat_database only when a busy connection flushes them (at most once a second,
 * and an idle one's not until its next statement or its end).
 */
function counted(pool: pg.Pool): () => number {
  let ended = 0;
  pool.on('connect', (client) => {
    // pg keeps the protocol connection as `connection`, which emits each message it parses
    const protocol = (client as unknown as { connection: import('node:events').EventEmitter })
      .connection;
    protocol.on('readyForQuery', (m: { status?: string }) => {
      if (m.status === 'I') ended++;
    });
  });
  return () => ended;
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
  const transactions = counted(pool);
  await pool.query('SELECT 1');
  return { kind: 'postgres', pool, transactions, close: () => pool.end() };
}

/** The socket's port number only names its file (`.s.PGSQL.<port>`), as PostgreSQL's do. */
const SOCKET_PORT = 5432;
/** sun_path holds 108 bytes */
const MAX_SOCKET_PATH = 100;

/**
 * A folder only this user can enter for the embedded database's socket: inside DATA_DIR,
 * or a private temporary one when DATA_DIR's path is too long for a socket.
 */
function socketFolder(dataDir: string): { dir: string; temporary: boolean } {
  const inside = path.join(dataDir, 'run');
  if (path.join(inside, `.s.PGSQL.${SOCKET_PORT}`).length <= MAX_SOCKET_PATH) {
    mkdirSync(inside, { recursive: true, mode: 0o700 });
    chmodSync(inside, 0o700);
    rmSync(path.join(inside, `.s.PGSQL.${SOCKET_PORT}`), { force: true }); // left by a killed process
    return { dir: inside, temporary: false };
  }
  return { dir: mkdtempSync(path.join(os.tmpdir(), 'editor-pg-')), temporary: true };
}

/**
 * The embedded default: PGlite in this process, data kept in a folder, served over a
 * Unix socket in a folder only this user can enter (PGlite has no authentication), so
 * the same pg.Pool code runs on it and no other user of the machine can reach it.
 * PGlite runs one transaction at a time across all connections, so code must never
 * wait for another connection while it holds a transaction.
 */
export async function openPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const dir = path.join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // pg_trgm: the trigram index behind substring SKU search
  // PostgreSQL's memory settings sized for one process's embedded database: PGlite's
  // memory is a WebAssembly memory, which grows to what its buffers and sorts once took
  // and never gives it back (at PostgreSQL's defaults, 128 MB of buffers and 64 MB for an
  // index build, 190 MB of the main process idle after `npm run seed:demo`)
  const db = await PGlite.create(dir, {
    extensions: { pg_trgm },
    startParams: [
      ...PGlite.defaultStartParams,
      ...['-c', 'shared_buffers=16MB', '-c', 'maintenance_work_mem=16MB'],
    ],
  });
  const socket = socketFolder(dataDir);
  const socketPath = path.join(socket.dir, `.s.PGSQL.${SOCKET_PORT}`);
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 16 });
  await server.start();
  chmodSync(socketPath, 0o600);
  const raw = new pg.Pool({
    host: socket.dir,
    port: SOCKET_PORT,
    user: 'postgres',
    database: 'postgres',
    max: 16,
  });
  survivable(raw);
  const transactions = counted(raw);
  const pool = serializedPool(raw);
  await pool.query('SELECT 1');
  return {
    kind: 'pglite',
    pool,
    transactions,
    async close() {
      await pool.end();
      await server.stop();
      await db.close();
      if (socket.temporary) rmSync(socket.dir, { recursive: true, force: true });
    },
  };
}

/** Whether a loopback port can be listened on now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
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

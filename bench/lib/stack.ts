import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error: a plain ES module of the project's scripts, without types
import { ensureBuilt } from '../../scripts/lib/prepare.mjs';
import { freePort } from '../../src/db/database.ts';
import { startLocalTemporal } from '../../src/temporal/dev-server.ts';
import { searchAttributeTypes } from '../../src/temporal/search-attributes.ts';
import { startPostgresCluster } from '../../test/helpers/postgres-cluster.ts';

/** Waits until a URL answers 2xx; fails when its process ended or after `timeoutMs` (a minute). */
export async function waitFor(url: string, proc: ChildProcess, timeoutMs = 60_000): Promise<void> {
  for (let i = 0; i < timeoutMs / 250; i++) {
    if (proc.exitCode !== null) throw new Error(`${url}: process exited`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} not up`);
}

export interface ServiceStack {
  base: string;
  /** the cluster's database, which the service uses */
  databaseUrl: string;
  operatorKey: string;
  dataDir: string;
  service: ChildProcess;
  /** each service process by its role */
  roles: Map<string, ChildProcess>;
  /** starts another service process of one role on the same database and Temporal; its base URL */
  addProcess(role: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * What the benchmarks measure against: a throwaway PostgreSQL cluster, the Temporal dev
 * server and the service as its own process (all roles), ready to answer; or, with
 * `roles`, one process a role (the first serves `base`, and the partner simulator).
 */
export async function startServiceStack(
  env: Record<string, string> = {},
  roles: string[] = ['all'],
): Promise<ServiceStack> {
  // BENCH_PG_STATS=1: PostgreSQL counts its statements (pg_stat_statements), for topStatements
  const cluster = await startPostgresCluster({ statementStats: !!process.env.BENCH_PG_STATS });
  // as the embedded default runs it: with the workflows' search attributes
  const temporal = await startLocalTemporal({
    cliPath: process.env.TEMPORAL_CLI_PATH,
    searchAttributes: searchAttributeTypes(),
  });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const operatorKey = randomBytes(32).toString('base64url');
  const shared = {
    MALLOC_ARENA_MAX: '2', // as `npm start` sets it
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: process.env.BENCH_PG_TCP ? cluster.url : cluster.socketUrl,
    TEMPORAL_ADDRESS: temporal.address,
    OPERATOR_API_KEY: operatorKey,
    EDITOR_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    ...env,
  };
  // BENCH_PROFILE_DIR: each service process writes a CPU profile there when it stops
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE_DIR]
    : [];
  // compiled, as `npm start` runs it
  ensureBuilt();
  const processes: ChildProcess[] = [];
  const spawnService = async (
    role: string,
    extra: Record<string, string>,
    until: 'readyz' | 'livez' = 'readyz',
  ) => {
    const port = await freePort();
    const proc = spawn(
      process.execPath,
      [...profile, '--conditions=production', 'dist/src/main.js', '--role', role],
      { env: { ...shared, PORT: String(port), ...extra }, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    processes.push(proc);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/${until}`, proc);
    return { proc, base };
  };
  const stop = async () => {
    for (const p of processes) p.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    await temporal.stop();
    cluster.stop();
    rmSync(dataDir, { recursive: true, force: true }); // a round's print files: 0.3-0.5 GB
  };
  try {
    // the first process sets the database up; split, a role may be ready only once the
    // others run (the API's read models need the projector): all are started, then waited for
    const first = await spawnService(roles[0]!, {}, roles.length > 1 ? 'livez' : 'readyz');
    const { proc: service, base } = first;
    const byRole = new Map([[roles[0]!, service]]);
    for (const role of roles.slice(1))
      byRole.set(role, (await spawnService(role, { PARTNER_SIMULATOR: 'off' }, 'livez')).proc);
    if (roles.length > 1) await waitFor(`${base}/readyz`, service);
    const addProcess = async (role: string) =>
      (await spawnService(role, { PARTNER_SIMULATOR: 'off' })).base;
    return {
      base,
      databaseUrl: cluster.url,
      operatorKey,
      dataDir,
      service,
      roles: byRole,
      addProcess,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** With BENCH_PG_STATS=1: one query on the bench's database (pg_stat_statements loaded). */
async function withStatementStats<T>(
  databaseUrl: string,
  query: (c: import('pg').Client) => Promise<T>,
): Promise<T | undefined> {
  if (!process.env.BENCH_PG_STATS) return undefined;
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    return await query(c);
  } finally {
    await c.end();
  }
}

/** With BENCH_PG_STATS=1: the statements counted so far are forgotten. */
export async function resetStatementStats(databaseUrl: string): Promise<void> {
  await withStatementStats(databaseUrl, (c) => c.query('SELECT pg_stat_statements_reset()'));
}

/**
 * With BENCH_PG_STATS=1: the statements that took PostgreSQL the most time, printed; `by`
 * 'calls': the most frequent ones, per `per` (e.g. per order).
 */
export async function printTopStatements(
  databaseUrl: string,
  n = 12,
  by: { calls: boolean; per?: number } = { calls: false },
): Promise<void> {
  await withStatementStats(databaseUrl, async (c) => {
    const r = await c.query<{ ms: number; calls: string; q: string }>(
      `SELECT round(total_exec_time) AS ms, calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS q
       FROM pg_stat_statements ORDER BY ${by.calls ? 'calls' : 'total_exec_time'} DESC LIMIT $1`,
      [n],
    );
    for (const row of r.rows) {
      const calls = by.per ? (Number(row.calls) / by.per).toFixed(2) : row.calls;
      console.log(`${String(row.ms).padStart(7)} ms ${calls.padStart(7)} x ${row.q}`);
    }
  });
}

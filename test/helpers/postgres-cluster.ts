import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/database.ts';

/** Finds the PostgreSQL server binaries: PG_BIN, else the newest /usr/lib/postgresql/N/bin. */
export function postgresBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0])
    throw new Error('no PostgreSQL server binaries: set PG_BIN or install postgresql');
  return path.join(root, versions[0], 'bin');
}

export interface PostgresCluster {
  url: string;
  /** the same server through its Unix socket (what a service on the same host would use) */
  socketUrl: string;
  /** stops the server for good and removes its files */
  stop(): void;
  /** stops the server as a crash would (immediate) or politely (fast), keeping its data */
  halt(mode?: 'immediate' | 'fast'): void;
  /** starts a halted server again on the same port and data */
  resume(): void;
}

/**
 * A throwaway PostgreSQL cluster in a temporary folder on a free loopback port.
 * initdb refuses to run as root, so as root the server runs as the `postgres` user.
 */
export async function startPostgresCluster(
  options: { durable?: boolean; statementStats?: boolean } = {},
): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pgcluster-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const full = path.join(bin, cmd);
    const r = asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', full, ...args], { encoding: 'utf8' })
      : spawnSync(full, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  // Tests trade durability for speed; the benchmarks keep fsync on (durable: true).
  const durability = options.durable
    ? ''
    : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const stats = options.statementStats ? ' -c shared_preload_libraries=pg_stat_statements' : '';
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-w',
      '-l',
      path.join(dir, 'log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${durability}${stats}`,
      'start',
    ]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    socketUrl: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}&port=${port}`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    halt(mode = 'immediate') {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    },
    resume: start,
  };
}

/** A new, empty database on the same server, so test files never share state. */
export async function createDatabase(serverUrl: string, prefix = 't'): Promise<string> {
  const name = `${prefix}_${Math.random().toString(36).slice(2, 10)}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

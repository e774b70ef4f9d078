import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/database.ts';
import { startLocalTemporal } from '../../src/temporal/dev-server.ts';
import { searchAttributeTypes } from '../../src/temporal/search-attributes.ts';
import { startPostgresCluster } from '../../test/helpers/postgres-cluster.ts';

/** Waits until a URL answers 2xx; fails when its process ended or after a minute. */
export async function waitFor(url: string, proc: ChildProcess): Promise<void> {
  for (let i = 0; i < 240; i++) {
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
  /** starts another service process of one role on the same database and Temporal; its base URL */
  addProcess(role: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * What the benchmarks measure against: a throwaway PostgreSQL cluster, the Temporal dev
 * server and the service as its own process (all roles), ready to answer.
 */
export async function startServiceStack(env: Record<string, string> = {}): Promise<ServiceStack> {
  const cluster = await startPostgresCluster();
  // as the embedded default runs it: with the workflows' search attributes
  const temporal = await startLocalTemporal({
    cliPath: process.env.TEMPORAL_CLI_PATH,
    searchAttributes: searchAttributeTypes(),
  });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const operatorKey = randomBytes(32).toString('base64url');
  const shared = {
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: cluster.url,
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
  const processes: ChildProcess[] = [];
  const spawnService = async (role: string, extra: Record<string, string>) => {
    const port = await freePort();
    const proc = spawn(
      process.execPath,
      [...profile, '--import', 'tsx', 'src/main.ts', '--role', role],
      { env: { ...shared, PORT: String(port), ...extra }, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    processes.push(proc);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`, proc);
    return { proc, base };
  };
  const stop = async () => {
    for (const p of processes) p.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    await temporal.stop();
    cluster.stop();
  };
  try {
    const { proc: service, base } = await spawnService('all', {});
    const addProcess = async (role: string) =>
      (await spawnService(role, { PARTNER_SIMULATOR: 'off' })).base;
    return { base, databaseUrl: cluster.url, operatorKey, dataDir, service, addProcess, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

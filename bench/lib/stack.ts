import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/database.ts';
import { startLocalTemporal } from '../../src/temporal/dev-server.ts';
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
  operatorKey: string;
  dataDir: string;
  service: ChildProcess;
  stop(): Promise<void>;
}

/**
 * What the benchmarks measure against: a throwaway PostgreSQL cluster, the Temporal dev
 * server and the service as its own process (all roles), ready to answer.
 */
export async function startServiceStack(env: Record<string, string> = {}): Promise<ServiceStack> {
  const cluster = await startPostgresCluster();
  const temporal = await startLocalTemporal({ cliPath: process.env.TEMPORAL_CLI_PATH });
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-'));
  const operatorKey = randomBytes(32).toString('base64url');
  const service = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: cluster.url,
      TEMPORAL_ADDRESS: temporal.address,
      OPERATOR_API_KEY: operatorKey,
      EDITOR_TOKEN_SECRET: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    service.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    await temporal.stop();
    cluster.stop();
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/readyz`, service);
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, operatorKey, dataDir, service, stop };
}

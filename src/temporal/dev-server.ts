import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { freePort } from '../db/database.ts';
import { processAlive } from '../processes.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** where scripts/install-temporal-cli.sh links the CLI */
export const PROJECT_CLI = path.join(ROOT, '.cache/temporal/bin/temporal');

export type SearchAttributeType = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime';

export interface LocalTemporalOptions {
  cliPath?: string | undefined;
  /** workflow state kept across restarts in this SQLite file */
  dbFile?: string | undefined;
  namespace?: string;
  /** gRPC port; a free one when not given */
  port?: number;
  /** the web UI's port; no UI when not given */
  uiPort?: number | undefined;
  searchAttributes?: Record<string, SearchAttributeType>;
  /**
   * where the server's pid is kept, so a server left by a killed process is stopped at the next
   * start
   */
  pidFile?: string | undefined;
  /** told when the server exited by itself and was started again */
  onRestart?: (why: string) => void;
}

export interface LocalTemporal {
  address: string;
  namespace: string;
  /** the web UI's address, when it serves one */
  uiUrl: string | undefined;
  /** stops the server for good (a test may stop and start it to simulate an outage) */
  stop(): Promise<void>;
  /** ends the server process as a crash would, without restarting it (tests) */
  kill(): Promise<void>;
  /** starts it again on the same port and file after kill() */
  restart(): Promise<void>;
}

/** A server a killed process of ours left running on the same data: stopped before we start. */
async function stopLeftover(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return;
  }
  if (!cmdline.includes('start-dev')) return; // the pid was reused by something else
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 50 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (processAlive(pid)) process.kill(pid, 'SIGKILL');
}

async function reachable(address: string, namespace: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`the Temporal dev server did not answer at ${address}: ${String(last)}`);
}

/**
 * Starts the official Temporal CLI's dev server as a child process (TEMPORAL_CLI_PATH,
 * else the project's installed CLI, else the SDK's own download as a last resort).
 * When the server exits by itself it is started again on the same port and data file.
 */
export async function startLocalTemporal(
  options: LocalTemporalOptions = {},
): Promise<LocalTemporal> {
  const cli = options.cliPath ?? (existsSync(PROJECT_CLI) ? PROJECT_CLI : undefined);
  const namespace = options.namespace ?? 'default';
  if (!cli) return startDownloaded(options, namespace);
  if (options.pidFile) await stopLeftover(options.pidFile);
  const port = options.port ?? (await freePort());
  const address = `127.0.0.1:${port}`;
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    'error',
    '--log-format',
    'json',
    ...(options.dbFile ? ['--db-filename', options.dbFile] : []),
    // an activity the workflow task schedules comes back in the task's answer to the
    // worker that has a free slot, instead of through the task queue and another poll
    '--dynamic-config-value',
    'system.enableActivityEagerExecution=true',
    // one server, one partition per task queue: the default four only pass tasks and
    // polls between each other (a workflow task waited 4.4 ms for its worker, now 3.4)
    '--dynamic-config-value',
    'matching.numTaskqueueReadPartitions=1',
    '--dynamic-config-value',
    'matching.numTaskqueueWritePartitions=1',
    ...(options.uiPort
      ? ['--ui-port', String(options.uiPort), '--ui-ip', '127.0.0.1']
      : ['--headless']),
    ...Object.entries(options.searchAttributes ?? {}).flatMap(([k, t]) => [
      '--search-attribute',
      `${k}=${t}`,
    ]),
  ];
  let child: ChildProcess | undefined;
  let stopping = false;
  let output = '';
  // however this process ends (a forced exit too), its dev server ends with it
  const onExit = () => child?.kill('SIGKILL');
  process.once('exit', onExit);
  const launch = () => {
    output = '';
    const c = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-4000);
    };
    c.stdout!.on('data', keep);
    c.stderr!.on('data', keep);
    c.on('exit', (code, signal) => {
      if (child !== c || stopping) return;
      child = undefined;
      const why = `exited (${signal ?? code})`;
      options.onRestart?.(why);
      setTimeout(() => {
        if (!stopping && !child) launch();
      }, 1000);
    });
    if (options.pidFile && c.pid) writeFileSync(options.pidFile, `${c.pid}\n`, { mode: 0o600 });
    child = c;
  };
  launch();
  try {
    await reachable(address, namespace, 60_000);
  } catch (err) {
    stopping = true;
    child?.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\n${output}`);
  }
  const end = async (c: ChildProcess | undefined) => {
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return {
    address,
    namespace,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    async stop() {
      stopping = true;
      const c = child;
      child = undefined;
      await end(c);
      process.off('exit', onExit);
      if (options.pidFile) rmSync(options.pidFile, { force: true });
    },
    async kill() {
      stopping = true;
      const c = child;
      child = undefined;
      if (c && c.exitCode === null) {
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGKILL');
        await exited;
      }
    },
    async restart() {
      stopping = false;
      launch();
      await reachable(address, namespace, 60_000);
    },
  };
}

/** No CLI on the machine: the SDK downloads the dev server (needs internet). */
async function startDownloaded(
  options: LocalTemporalOptions,
  namespace: string,
): Promise<LocalTemporal> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'cached-download' },
      namespace,
      ...(options.port ? { port: options.port } : {}),
      ...(options.dbFile ? { dbFilename: options.dbFile } : {}),
      ...(options.uiPort ? { ui: true, uiPort: options.uiPort } : {}),
      log: { format: 'json', level: 'error' },
      extraArgs: Object.entries(options.searchAttributes ?? {}).flatMap(([k, t]) => [
        '--search-attribute',
        `${k}=${t}`,
      ]),
    },
  });
  const unsupported = async () => {
    throw new Error('kill/restart need the Temporal CLI (TEMPORAL_CLI_PATH)');
  };
  return {
    address: env.address,
    namespace,
    uiUrl: options.uiPort ? `http://127.0.0.1:${options.uiPort}` : undefined,
    stop: () => env.teardown(),
    kill: unsupported,
    restart: unsupported,
  };
}

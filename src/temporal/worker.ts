import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import type { Logger } from 'pino';
import { describeError } from '../subscriptions/parked.ts';
import { closableInterceptors } from './closed-guard.ts';
import type { Activities } from './contract.ts';
import { clientTracing, workerTracing, workflowTracingModules } from './tracing.ts';
import { workflowBundleFor } from './workflow-bundle.ts';

// the sources, or the compiled output beside this compiled file (the image runs dist/)
const WORKFLOWS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  import.meta.url.endsWith('.ts') ? '../../workflows/index.ts' : '../../workflows/index.js',
);

export interface TemporalTarget {
  address: string;
  namespace: string;
  taskQueue: string;
}

/**
 * The one place where the app's Temporal client is made. The connection is lazy: a
 * process starts (and records work) while Temporal is down, and connects when it is back.
 */
export function connectClient(target: TemporalTarget): { client: Client; close(): Promise<void> } {
  const guard = closableInterceptors();
  const connection = Connection.lazy({
    address: target.address,
    interceptors: guard.interceptors,
  });
  const client = new Client(clientOptions(connection, target));
  return {
    client,
    close: () => {
      guard.close();
      return connection.close();
    },
  };
}

let runtimeInstalled = false;
let coreMetricsUrl: string | undefined;

/**
 * Routes the SDK's own log (warnings and worse) into the app's log and has the SDK's
 * core export its metrics (task slots, poll and schedule-to-start latencies) in
 * Prometheus format on `metricsAddress` (host:port), which the app's /metrics appends.
 * Must run before the first Temporal connection of the process; later calls, or a
 * runtime some other code made first, leave the runtime as it is.
 */
export function installTemporalRuntime(log: Logger, metricsAddress?: string): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({
      // the app stops the worker itself, in order, on SIGINT/SIGTERM
      shutdownSignals: [],
      logger: new DefaultLogger('WARN', (entry) => {
        const level = entry.level === 'ERROR' ? 'error' : 'warn';
        log[level]({ temporal: entry.meta }, entry.message);
      }),
      ...(metricsAddress
        ? {
            telemetryOptions: {
              metrics: {
                metricPrefix: 'temporal_',
                prometheus: {
                  bindAddress: metricsAddress,
                  countersTotalSuffix: true,
                  unitSuffix: true,
                  useSecondsForDurations: true,
                },
              },
            },
          }
        : {}),
    });
    if (metricsAddress) coreMetricsUrl = `http://${metricsAddress}/metrics`;
  } catch {
    // already instantiated: keep it
  }
}

/**
 * The SDK core's metrics in Prometheus text, '' when it exports none or does not answer
 * (the core serves them only once a worker has run).
 */
export async function temporalCoreMetrics(): Promise<string> {
  if (!coreMetricsUrl) return '';
  try {
    const r = await fetch(coreMetricsUrl, { signal: AbortSignal.timeout(2000) });
    return r.ok ? await r.text() : '';
  } catch {
    return '';
  }
}

const bundles = new Map<string, Promise<WorkflowBundleOption>>();
/**
 * workflows/ bundled once per process (or kept on disk): a worker made again after a failure reuses
 * it
 */
const workflowBundle = () => {
  // with tracing on, the workflows' interceptors go into the bundle (tracing.ts)
  const modules = workflowTracingModules();
  const key = modules.join(',');
  let made = bundles.get(key);
  if (!made) {
    made = workflowBundleFor(WORKFLOWS, modules);
    bundles.set(key, made);
  }
  return made;
};

/** A client, starting workflows in the active trace when tracing is on. */
const clientOptions = (connection: Connection | NativeConnection, target: TemporalTarget) => {
  const interceptors = clientTracing();
  return { connection, namespace: target.namespace, ...(interceptors ? { interceptors } : {}) };
};

/**
 * How much a worker keeps in memory (TEMPORAL_MAX_CACHED_WORKFLOWS); the SDK's defaults otherwise.
 */
export interface WorkerBounds {
  maxCachedWorkflows?: number;
}

/** A worker that is made once: it ends when it is shut down or when it fails. */
export async function createWorker(
  target: TemporalTarget,
  activities: Activities,
  bounds: WorkerBounds = {},
) {
  const connection = await NativeConnection.connect({ address: target.address });
  try {
    const tracing = workerTracing();
    const worker = await Worker.create({
      ...tracing,
      connection,
      namespace: target.namespace,
      taskQueue: target.taskQueue,
      workflowBundle: await workflowBundle(),
      activities,
      // one V8 context for all workflow runs (the SDK's default, said here as it is relied on)
      reuseV8Context: true,
      // a stop waits for running activities, which a render in an image process does not
      // notice being cancelled: past this the worker is let go (the pools it used are
      // closed next, their processes with them; Temporal runs the attempt again elsewhere)
      shutdownForceTime: '30s',
      ...(bounds.maxCachedWorkflows !== undefined
        ? { maxCachedWorkflows: bounds.maxCachedWorkflows }
        : {}),
    });
    let client: Client | undefined;
    return {
      worker,
      /** resolves when the worker has stopped */
      run: () => worker.run(),
      /**
       * A client on the worker's own connection: a workflow it starts with
       * `requestEagerStart` has its first task handed to this worker in the start's answer.
       */
      client: () => {
        client ??= new Client(clientOptions(connection, target));
        return client;
      },
      async close() {
        await connection.close();
      },
    };
  } catch (err) {
    await connection.close().catch(() => {});
    throw err;
  }
}

export interface SupervisedWorker {
  /** RUNNING while it polls; otherwise why not */
  state(): { running: boolean; detail: string };
  /**
   * a client on the running worker's connection (see createWorker), none while it is not running
   */
  client(): Client | undefined;
  stop(): Promise<void>;
}

/**
 * The app's worker, kept running: when it cannot connect, or fails (the SDK gives up
 * on a server it cannot reach after about a minute), it is made again after a back-off,
 * for as long as the process runs.
 */
export function superviseWorker(
  target: TemporalTarget,
  activities: Activities,
  log: Logger,
  bounds: WorkerBounds = {},
): SupervisedWorker {
  let stopping = false;
  let current: Awaited<ReturnType<typeof createWorker>> | undefined;
  let detail = 'starting';
  let wake: (() => void) | undefined;
  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      try {
        current = await createWorker(target, activities, bounds);
        if (stopping) break;
        detail = 'running';
        failures = 0;
        await current.run();
        if (!stopping) detail = 'stopped by itself';
      } catch (err) {
        detail = `failed: ${describeError(err)}`;
        if (!stopping)
          log.warn({ error: describeError(err) }, 'Temporal worker failed; making it again');
      } finally {
        const c = current;
        current = undefined;
        await c?.close().catch(() => {});
      }
      if (stopping) break;
      const wait = Math.min(30_000, 1000 * 2 ** failures++);
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, wait);
      });
    }
  })();
  return {
    client: () => (current?.worker.getState() === 'RUNNING' ? current.client() : undefined),
    state: () => ({
      running: current?.worker.getState() === 'RUNNING',
      detail: current ? current.worker.getState().toLowerCase() : detail,
    }),
    async stop() {
      stopping = true;
      wake?.();
      if (current && current.worker.getState() === 'RUNNING') current.worker.shutdown();
      await loop;
    },
  };
}

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Activities } from '../activities/index.ts';

const WORKFLOWS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../workflows/index.ts',
);

export interface TemporalTarget {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** The one place where the app's Temporal client is made. */
export async function connectClient(
  target: TemporalTarget,
): Promise<{ client: Client; close(): Promise<void> }> {
  const connection = await Connection.connect({ address: target.address });
  // connect() ran in the connection's AsyncLocalStorage, which on Node 20 turns on
  // promise hooks for the whole process, a cost on every promise of every request. Its
  // store is only set inside withDeadline/withMetadata, which enable it again themselves.
  connection.callContextStorage.disable();
  const client = new Client({ connection, namespace: target.namespace });
  return { client, close: () => connection.close() };
}

let runtimeInstalled = false;

/**
 * Routes the SDK's own log (warnings and worse) into the app's log. Must run before the
 * first Temporal connection of the process; later calls, or a runtime some other code
 * made first, leave the runtime as it is.
 */
export function installTemporalRuntime(log: Logger): void {
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
    });
  } catch {
    // already instantiated: keep it
  }
}

/** The one place where the app's worker is made: bundles workflows/, registers activities. */
export async function createWorker(target: TemporalTarget, activities: Activities) {
  const connection = await NativeConnection.connect({ address: target.address });
  const worker = await Worker.create({
    connection,
    namespace: target.namespace,
    taskQueue: target.taskQueue,
    workflowsPath: WORKFLOWS,
    activities,
  });
  return {
    worker,
    /** resolves when the worker has stopped */
    run: () => worker.run(),
    async close() {
      await connection.close();
    },
  };
}

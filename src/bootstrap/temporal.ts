import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { type Activities, createActivities } from '../activities/index.ts';
import type { Config } from '../config.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import { ReactionRunner } from '../reactions/reactor.ts';
import { scheduleReconciler } from '../reactions/reconciler.ts';
import { workflowStartsReactor } from '../reactions/workflow-starts.ts';
import { type LocalTemporal, startLocalTemporal } from '../temporal/dev-server.ts';
import {
  connectClient,
  installTemporalRuntime,
  type SupervisedWorker,
  superviseWorker,
  type TemporalTarget,
} from '../temporal/worker.ts';
import { WorkflowStarts } from '../temporal/workflow-starts.ts';
import type { DataParts } from './data.ts';
import type { Stops } from './stops.ts';

export interface TemporalParts {
  client: Client;
  target: TemporalTarget;
  /** the embedded default's dev server, started by this process */
  local: LocalTemporal | undefined;
  starts: WorkflowStarts;
}

/** The Temporal server (the configured one, or a dev server this process starts) and a client. */
export async function connectTemporal(
  config: Config,
  log: Logger,
  stops: Stops,
): Promise<TemporalParts> {
  installTemporalRuntime(log.child({ part: 'temporal' }));
  let address = config.temporal.address;
  let local: LocalTemporal | undefined;
  if (!address) {
    local = await startLocalTemporal({
      cliPath: config.temporal.cliPath,
      dbFile: path.join(config.dataDir, 'temporal.sqlite'),
      pidFile: path.join(config.dataDir, 'temporal.pid'),
      namespace: config.temporal.namespace,
      onRestart: (why) => log.warn({ why }, 'local Temporal dev server stopped; starting it again'),
    });
    stops.add(() => local!.stop());
    address = local.address;
    log.info({ address }, 'local Temporal dev server started');
  }
  const target = {
    address,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
  };
  const { client, close } = connectClient(target);
  stops.add(close);
  return { client, target, local, starts: new WorkflowStarts(client, target.taskQueue) };
}

export interface WorkerOptions {
  /** wraps the worker's activities (fault injection in tests) */
  wrapActivities?: (activities: Activities) => Activities;
  /** wraps the workflow starts the reactor makes (fault injection in tests) */
  wrapStarts?: (starts: WorkflowStarts) => WorkflowStarts;
}

/**
 * The reactor runner that starts workflows from the log. Made wherever there is a
 * Temporal client (the API shows its status and retries its parked events); run by the
 * worker role only.
 */
export function createReactions(
  config: Config,
  data: DataParts,
  temporal: TemporalParts,
  log: Logger,
  options: WorkerOptions,
): ReactionRunner {
  const starts = options.wrapStarts?.(temporal.starts) ?? temporal.starts;
  return new ReactionRunner(
    data.db.pool,
    data.store,
    [workflowStartsReactor(starts, data.store)],
    log.child({ part: 'reactions' }),
    {
      batchSize: 100,
      parkAfter: config.parkAfter,
      wakeups: data.store instanceof PostgresEventStore ? data.store.appended : undefined,
    },
  );
}

/**
 * The worker role: a supervised Temporal worker, the reactor that starts workflows from
 * the event log, and the reconciler that finds orders whose workflow is gone.
 */
export function startWorkerRole(
  config: Config,
  data: DataParts,
  temporal: TemporalParts,
  reactions: ReactionRunner,
  log: Logger,
  stops: Stops,
  options: WorkerOptions,
): SupervisedWorker {
  const activities = createActivities({
    store: data.store,
    storage: data.storage,
    images: data.images,
  });
  const worker = superviseWorker(
    temporal.target,
    options.wrapActivities?.(activities) ?? activities,
    log.child({ part: 'worker' }),
  );
  stops.add(() => worker.stop());
  reactions.start();
  stops.add(() => reactions.stop());
  const starts = options.wrapStarts?.(temporal.starts) ?? temporal.starts;
  const reconciler = scheduleReconciler(
    { pool: data.db.pool, store: data.store, client: temporal.client, starts },
    config.reconcileIntervalMs,
    log.child({ part: 'reconciler' }),
  );
  stops.add(() => reconciler.stop());
  return worker;
}

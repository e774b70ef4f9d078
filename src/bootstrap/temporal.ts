import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { type ActivityDeps, createActivities } from '../activities/index.ts';
import { renderAheadOf } from '../activities/orders.ts';
import { proofLinkMaker } from '../app/proof-links.ts';
import type { Config } from '../config.ts';
import { freePort, portFree } from '../db/database.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import { Renders } from '../print/image-work.ts';
import { renderLoad } from '../print/load.ts';
import { type AheadOutcome, RendersAhead } from '../print/renders-ahead.ts';
import type { StoredRender } from '../print/stored-render.ts';
import { Impositions } from '../production/imposition-work.ts';
import { ReactionRunner } from '../reactions/reactor.ts';
import { scheduleReconciler } from '../reactions/reconciler.ts';
import { type OrderReceivedHook, workflowStartsReactor } from '../reactions/workflow-starts.ts';
import type { Activities } from '../temporal/contract.ts';
import { type LocalTemporal, startLocalTemporal } from '../temporal/dev-server.ts';
import { registerSearchAttributes, searchAttributeTypes } from '../temporal/search-attributes.ts';
import {
  connectClient,
  installTemporalRuntime,
  type SupervisedWorker,
  superviseWorker,
  type TemporalTarget,
} from '../temporal/worker.ts';
import { WorkflowStarts } from '../temporal/workflow-starts.ts';
import { WebhookDispatcher } from '../webhooks/delivery/dispatcher.ts';
import type { DataParts } from './data.ts';
import type { Stops } from './stops.ts';

export interface TemporalParts {
  client: Client;
  target: TemporalTarget;
  /** the embedded default's dev server, started by this process */
  local: LocalTemporal | undefined;
  starts: WorkflowStarts;
  /** where an operator opens a workflow in Temporal's web UI, if anywhere */
  uiUrl: string | undefined;
}

/** The Temporal server (the configured one, or a dev server this process starts) and a client. */
export async function connectTemporal(
  config: Config,
  log: Logger,
  stops: Stops,
  options: { worker: boolean },
): Promise<TemporalParts> {
  // a worker's SDK metrics, on a loopback port of their own, appended to /metrics
  const metricsPort = options.worker
    ? config.temporal.metricsPort || (await freePort())
    : undefined;
  installTemporalRuntime(
    log.child({ part: 'temporal' }),
    metricsPort ? `127.0.0.1:${metricsPort}` : undefined,
  );
  let address = config.temporal.address;
  let local: LocalTemporal | undefined;
  if (!address) {
    // the UI is a convenience: a port another program holds leaves it out
    const uiPort =
      config.temporal.uiPort && (await portFree(config.temporal.uiPort))
        ? config.temporal.uiPort
        : undefined;
    if (config.temporal.uiPort && !uiPort)
      log.warn({ port: config.temporal.uiPort }, 'TEMPORAL_UI_PORT is taken: no Temporal web UI');
    local = await startLocalTemporal({
      cliPath: config.temporal.cliPath,
      dbFile: path.join(config.dataDir, 'temporal.sqlite'),
      pidFile: path.join(config.dataDir, 'temporal.pid'),
      namespace: config.temporal.namespace,
      uiPort,
      searchAttributes: searchAttributeTypes(),
      onRestart: (why) => log.warn({ why }, 'local Temporal dev server stopped; starting it again'),
    });
    stops.add(() => local!.stop());
    address = local.address;
    log.info({ address, ui: local.uiUrl }, 'local Temporal dev server started');
  }
  const target = {
    address,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
  };
  const { client, close } = connectClient(target);
  stops.add(close);
  if (!local) void registerSearchAttributes(client, target.namespace, log);
  const starts = new WorkflowStarts(client, target.taskQueue, (err) =>
    log.warn(
      { error: err.message },
      'the Temporal server lacks the search attributes OrderId, LabelId, OrderStatus: order workflows start without them',
    ),
  );
  return { client, target, local, starts, uiUrl: config.temporal.uiUrl ?? local?.uiUrl };
}

/** How long one print file may take to render; the render process is killed after. */
const RENDER_LIMIT_MS = 60_000;

export interface WorkerOptions {
  /** told how long each order item's rendering took */
  observeRender?: ActivityDeps['observeRender'];
  /** told where each order workflow's first task went (see WorkflowStarts.startOn) */
  observeWorkflowStart?: (firstTask: 'handed_over' | 'queued') => void;
  /** told what became of each render started ahead of its activity */
  observeRenderAhead?: (outcome: AheadOutcome) => void;
  /** told each webhook attempt's outcome */
  observeWebhook?: (outcome: string, seconds: number, answerBytes: number) => void;
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
  received?: OrderReceivedHook,
): ReactionRunner {
  const starts = options.wrapStarts?.(temporal.starts) ?? temporal.starts;
  return new ReactionRunner(
    data.db.pool,
    data.store,
    [workflowStartsReactor(starts, data.store, received)],
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
): {
  worker: SupervisedWorker;
  webhooks: WebhookDispatcher;
  /** for the reactor: starts a new order's renders ahead of its workflow */
  renderAhead: OrderReceivedHook;
} {
  renderLoad.setLimit(config.renderConcurrency);
  const renders = new Renders(config.renderConcurrency, RENDER_LIMIT_MS, config.renderWarmUp);
  stops.add(() => renders.close());
  const impositions = new Impositions();
  stops.add(() => impositions.close());
  const ahead = config.renderAhead
    ? new RendersAhead<StoredRender>(renderLoad, options.observeRenderAhead)
    : undefined;
  if (ahead) stops.add(async () => ahead.clear());
  const deps: ActivityDeps = {
    store: data.store,
    storage: data.storage,
    images: data.images,
    stores: data.stores,
    renders,
    impositions,
    ...(ahead ? { ahead } : {}),
    ...(options.observeRender ? { observeRender: options.observeRender } : {}),
    db: data.db.pool,
    ...(data.orderStates ? { orderStates: data.orderStates } : {}),
  };
  const activities = createActivities(deps);
  const worker = superviseWorker(
    temporal.target,
    options.wrapActivities?.(activities) ?? activities,
    log.child({ part: 'worker' }),
    { maxCachedWorkflows: config.temporal.maxCachedWorkflows },
  );
  stops.add(() => worker.stop());
  temporal.starts.startOn(() => worker.client(), options.observeWorkflowStart);
  reactions.start();
  stops.add(() => reactions.stop());
  const webhooks = new WebhookDispatcher({
    store: data.store,
    db: data.db.pool,
    changes: data.feed,
    targets: config.webhooks,
    timeoutMs: config.webhooks.timeoutMs,
    scale: config.webhooks.scheduleScale,
    log: log.child({ part: 'webhooks' }),
    ...(options.observeWebhook ? { observe: options.observeWebhook } : {}),
    proofLinks: proofLinkMaker(config.publicBaseUrl, config.editorTokenSecret),
  });
  webhooks.start();
  stops.add(() => webhooks.stop());
  const starts = options.wrapStarts?.(temporal.starts) ?? temporal.starts;
  const reconciler = scheduleReconciler(
    { pool: data.db.pool, store: data.store, client: temporal.client, starts },
    config.reconcileIntervalMs,
    log.child({ part: 'reconciler' }),
  );
  stops.add(() => reconciler.stop());
  return { worker, webhooks, renderAhead: renderAheadOf(deps) };
}

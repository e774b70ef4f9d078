import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { allProjections } from '#projections/index';
import { ProjectionRunner } from '#projections/projection-runner';
import { watchApprovals } from '../app/approvals.ts';
import { publishDailyTreeHeads, signWhenGrown, sweepAuditTree } from '../app/audit.ts';
import { AuthThrottle } from '../app/auth-throttle.ts';
import { runBatchingRules } from '../app/batching-rules.ts';
import { CommandBatches } from '../app/command-batches.ts';
import type { AppContext } from '../app/context.ts';
import { FoldedStates } from '../app/folded-states.ts';
import { scheduleImageCleanup } from '../app/image-cleanup.ts';
import { DeploymentShares } from '../app/label-shares.ts';
import { markLateShipments, markOverdueOrders } from '../app/order-operations.ts';
import { readYourWrites } from '../app/read-your-writes.ts';
import { type Config, persistedSecret, type Role } from '../config.ts';
import { ApiProcesses } from '../db/api-processes.ts';
import { auditSigner } from '../db/audit-heads.ts';
import type { Database } from '../db/database.ts';
import { orderAggregate } from '../domain/order/decider.ts';
import { type EventStore, START } from '../eventstore/port.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import { sweepScratch } from '../files/scratch.ts';
import {
  databaseCheck,
  eventStoreCheck,
  pollersCheck,
  type ReadinessCheck,
  storageCheck,
  subscriptionsCheck,
  temporalCheck,
  webhooksCheck,
  workerCheck,
} from '../health/readiness.ts';
import { startHealthServer } from '../http/health-server.ts';
import { buildHttpServer } from '../http/server.ts';
import { instrumentedStore } from '../metrics/instrumented-store.ts';
import { Metrics } from '../metrics/metrics.ts';
import { startPartnerSimulator } from '../partner/simulator.ts';
import { ImageChecks, MockupDrawing, VariableData } from '../print/image-work.ts';
import { renderLoad } from '../print/load.ts';
import { PreviewRenderer } from '../print/preview-renderer.ts';
import { every } from '../processes.ts';
import { ReactionRunner } from '../reactions/reactor.ts';
import { routingReactor } from '../reactions/routing.ts';
import type { OrderReceivedHook } from '../reactions/workflow-starts.ts';
import { LabelDoor } from '../shares/door.ts';
import type { FileStorage } from '../storage/port.ts';
import { describeError } from '../subscriptions/parked.ts';
import { startTracing } from '../telemetry/sdk.ts';
import { taskQueuePollers } from '../temporal/pollers.ts';
import { temporalCoreMetrics } from '../temporal/worker.ts';
import { type DataParts, migrateSchema, openData } from './data.ts';
import { registerGauges } from './metrics.ts';
import { createPreviewRunner } from './previews.ts';
import { keepPrivate, makePrivate } from './private-files.ts';
import { Stops } from './stops.ts';
import {
  connectTemporal,
  createReactions,
  startWorkerRole,
  type TemporalParts,
  type WorkerOptions,
} from './temporal.ts';

export interface App {
  /** what the use cases work with */
  context: AppContext;
  db: Database;
  store: EventStore;
  storage: FileStorage;
  images: FileStorage;
  runner: ProjectionRunner;
  /** the reactor runner of the worker role */
  reactions: ReactionRunner | undefined;
  http: FastifyInstance | undefined;
  /** where the API charges each request to its label's share, when the role serves the API */
  door: LabelDoor | undefined;
  temporal: TemporalParts | undefined;
  /** the bound address of the API server, when the role serves the API */
  url: string | undefined;
  /** the bound address of the health server of the worker and projector roles */
  healthUrl: string | undefined;
  partnerSimulator: { url: string } | undefined;
  stop(): Promise<void>;
}

export type StartOptions = WorkerOptions;

/** How long one drawing of mockups (a design on all its templates) may take. */
const MOCKUP_TIMEOUT_MS = 60_000;
/** a data set of 100,000 rows is parsed or checked in a few seconds; a record drawn in one */
const VARIABLE_DATA_TIMEOUT_MS = 60_000;

/** How long no print file must have been rendered before a preview is drawn. */
const PREVIEW_QUIET_MS = 1000;

const has = (role: Role | Role[], part: Exclude<Role, 'all'>) => {
  const roles = Array.isArray(role) ? role : [role];
  return roles.includes('all') || roles.includes(part);
};

/**
 * The composition root: builds the adapters the configuration asks for and starts the
 * parts of the role, step by step. Every part started is stopped by `stop`, in reverse.
 */
export async function startApp(
  config: Config,
  role: Role | Role[],
  log: Logger,
  options: StartOptions = {},
): Promise<App> {
  const stops = new Stops(log);
  try {
    // traces over OTLP when an endpoint is configured; the last of the process's apps stops it
    const tracing = startTracing(config.tracing);
    if (tracing) stops.add(tracing);
    if (!config.databaseUrl) await makePrivate(config.dataDir);
    // what a process of this machine left in its scratch folders when it died
    const swept = await sweepScratch();
    if (swept > 0) log.info({ swept }, 'removed the scratch folders of dead processes');
    const data = await openData(config, log, stops);
    const runner = new ProjectionRunner(
      data.db.pool,
      data.store,
      allProjections,
      log.child({ part: 'projector' }),
      {
        onCommit: (projection, phase) =>
          data.feed.publish({ kind: 'readModel', projection, phase }),
        wakeups: data.store instanceof PostgresEventStore ? data.store.appended : undefined,
        parkAfter: config.parkAfter,
      },
    );
    await migrateSchema(data, [runner]);
    const metrics = new Metrics();
    // commands append through this one: appends timed, orders and items counted
    const store = instrumentedStore(data.store, metrics);
    const previews = new PreviewRenderer();
    stops.add(() => previews.close());
    const imageChecks = new ImageChecks(config.imageChecks);
    stops.add(() => imageChecks.close());
    const mockupDrawing = new MockupDrawing({
      processes: config.imageChecks.processes,
      timeoutMs: MOCKUP_TIMEOUT_MS,
      nice: 0,
    });
    stops.add(() => mockupDrawing.close());
    const variableData = new VariableData({
      processes: config.imageChecks.processes,
      timeoutMs: VARIABLE_DATA_TIMEOUT_MS,
    });
    stops.add(() => variableData.close());
    const context: AppContext = {
      store,
      pool: data.db.pool,
      storage: data.storage,
      images: data.images,
      downloads: config.downloads,
      readModels: readYourWrites(runner, data.feed),
      drawPreviews: (pdf) => previews.render(pdf),
      inkMethods: config.inkMethods,
      imageChecks,
      mockupDrawing,
      variableData,
      stores: data.stores,
      webhookTargets: config.webhooks,
      orderCommands: new CommandBatches(
        store,
        orderAggregate,
        data.orderStates ?? new FoldedStates(1_000),
      ),
      ...(data.orderStates ? { orderStates: data.orderStates } : {}),
      reads: data.reads,
      auditSigner: auditSigner(config.audit.signingKey),
      maximums: config.labelMaximums,
      observeStage: (labelId, stage, seconds) =>
        metrics.stageReached.observe({ label: labelId, stage }, seconds),
    };
    if (!config.databaseUrl) {
      await makePrivate(config.dataDir);
      const kept = keepPrivate(config.dataDir);
      stops.add(() => kept.stop());
    }

    const readiness: ReadinessCheck[] = [databaseCheck(data.db.pool), eventStoreCheck(data.store)];
    // every role holds files: the API serves them, the worker writes them, the
    // projector clears away unused images
    readiness.push(storageCheck([data.storage, data.images]));
    if (has(role, 'projector')) startProjector(config, data, runner, log, stops);
    // routing reads the read models (loads, facilities): it runs beside the projections
    const routing = new ReactionRunner(
      data.db.pool,
      store,
      [
        routingReactor({
          store,
          pool: data.db.pool,
          loadsSeen: (position) =>
            runner.waitFor('facility-loads', position, 60_000, { readsOnly: true }),
          itemsSeen: (position) => runner.waitFor('orders', position, 10_000, { readsOnly: true }),
          facilitiesSeen: (position) =>
            runner.waitFor('facilities', position, 10_000, { readsOnly: true }),
        }),
      ],
      log.child({ part: 'routing' }),
      {
        parkAfter: config.parkAfter,
        wakeups: data.store instanceof PostgresEventStore ? data.store.appended : undefined,
      },
    );
    if (has(role, 'projector')) {
      routing.start();
      stops.add(() => routing.stop());
      readiness.push(subscriptionsCheck('routing', routing, config.maxLagMs));
      // the audit log's tree head, signed when the tree grew (AUDIT_HEAD_INTERVAL_MS)
      const heads = every(
        config.audit.headIntervalMs,
        () => signWhenGrown(context),
        (err) => log.warn({ error: describeError(err) }, 'signing the audit tree head failed'),
      );
      stops.add(() => heads.stop());
      // the stored events hashed again against the tree, a page every AUDIT_SWEEP_MS
      let swept = { leafIndex: 0, after: START };
      const sweep = every(
        config.audit.sweepMs,
        async () => {
          swept = await sweepAuditTree(context, swept);
        },
        (err) => log.warn({ error: describeError(err) }, 'the audit sweep failed'),
      );
      stops.add(() => sweep.stop());
      // each label's shops get the day's head (webhook audit.tree_head), once a UTC day
      if (config.audit.dailyHeadCheckMs > 0) {
        const published = new Map<string, string>();
        const daily = every(
          config.audit.dailyHeadCheckMs,
          () => publishDailyTreeHeads(context, published),
          (err) =>
            log.warn({ error: describeError(err) }, 'publishing the daily tree heads failed'),
        );
        stops.add(() => daily.stop());
      }
    }
    if (has(role, 'api') || has(role, 'projector'))
      readiness.push(subscriptionsCheck('projections', runner, config.maxLagMs));

    // print-file previews follow from the log, in the worker; not part of readiness: a
    // preview that comes late is only late
    // the reactor's previews wait for a moment without print files to render; one asked
    // for on the ops page is drawn at once
    const lowPriorityMockups = new MockupDrawing({
      processes: 1,
      timeoutMs: MOCKUP_TIMEOUT_MS,
      nice: 19,
    });
    stops.add(() => lowPriorityMockups.close());
    const previewRunner = createPreviewRunner(
      config,
      data,
      {
        previews: (pdf) => previews.render(pdf),
        mockups: lowPriorityMockups,
        quiet: () => renderLoad.idle(PREVIEW_QUIET_MS),
      },
      log,
    );
    if (has(role, 'worker')) {
      previewRunner.start();
      stops.add(() => previewRunner.stop());
    }

    let temporal: TemporalParts | undefined;
    let reactions: ReactionRunner | undefined;
    if (has(role, 'api') || has(role, 'worker')) {
      temporal = await connectTemporal(config, log, stops, { worker: has(role, 'worker') });
      readiness.push(temporalCheck(temporal.client));
      // a new order's renders start ahead of its workflow in the worker role's process
      let renderAhead: OrderReceivedHook | undefined;
      reactions = createReactions(config, data, temporal, log, options, (order, recordedAt) =>
        renderAhead?.(order, recordedAt),
      );
      if (has(role, 'worker')) {
        const started = startWorkerRole(
          config,
          { ...data, store },
          temporal,
          reactions,
          log,
          stops,
          {
            ...options,
            observeRender: (seconds, outcome) =>
              metrics.renderDuration.observe({ outcome }, seconds),
            observeWebhook: (outcome, _seconds, answerBytes) => {
              metrics.webhookAttempts.inc({ outcome });
              metrics.webhookAnswerBytes.inc(answerBytes);
            },
            observeWorkflowStart: (firstTask) =>
              metrics.orderWorkflowStarts.inc({ first_task: firstTask }),
            observeRenderAhead: (outcome) => metrics.rendersAhead.inc({ outcome }),
          },
        );
        const { worker, webhooks } = started;
        renderAhead = started.renderAhead;
        const deadlines = every(
          config.overdueSweepMs,
          async () => {
            await markOverdueOrders(context);
            await markLateShipments(context);
            await watchApprovals(context);
          },
          (err) => log.warn({ error: describeError(err) }, 'looking for overdue orders failed'),
        );
        stops.add(() => deadlines.stop());
        const batchingRules = every(
          config.batchingSweepMs,
          () => runBatchingRules(context, new Date()),
          (err) => log.warn({ error: describeError(err) }, 'running the batching rules failed'),
        );
        stops.add(() => batchingRules.stop());
        readiness.push(
          workerCheck(worker),
          webhooksCheck(webhooks),
          subscriptionsCheck('reactions', reactions, config.maxLagMs),
        );
      } else {
        readiness.push(
          pollersCheck(temporal.client, temporal.target.namespace, temporal.target.taskQueue),
        );
      }
    }

    const partnerSimulator = has(role, 'api')
      ? await startSimulator(config, log, stops)
      : undefined;

    const client = temporal?.client;
    const target = temporal?.target;
    const pollers =
      client && target
        ? () => taskQueuePollers(client, target.namespace, target.taskQueue)
        : undefined;
    const runners = [
      ...(has(role, 'api') || has(role, 'projector') ? [runner] : []),
      ...(has(role, 'projector') ? [routing] : []),
      ...(reactions && (has(role, 'api') || has(role, 'worker')) ? [reactions] : []),
      ...(has(role, 'api') || has(role, 'worker') ? [previewRunner] : []),
    ];
    registerGauges(metrics, {
      orders: has(role, 'api') ? data.db.pool : undefined,
      runners,
      pollers: has(role, 'api') ? pollers : undefined,
      transactions: () => data.db.transactions(),
    });
    const metricsRoute = {
      metrics,
      operatorKey: config.operatorApiKey,
      metricsToken: config.metricsToken,
      extra: has(role, 'worker') ? temporalCoreMetrics : undefined,
    };

    let http: FastifyInstance | undefined;
    let url: string | undefined;
    let healthUrl: string | undefined;
    let door: LabelDoor | undefined;
    if (has(role, 'api')) {
      // a label's share is the deployment's: each API process takes its part. The embedded
      // database has one process by construction: nothing to count (a row left by a
      // killed one would halve the shares after its restart)
      const shares = new DeploymentShares(
        data.db.pool,
        data.feed,
        config.databaseUrl ? new ApiProcesses(data.db.pool) : undefined,
      );
      await shares.start();
      stops.add(() => shares.stop());
      door = new LabelDoor({
        ...config.door,
        factorOf: shares.factorOf,
        processes: shares.processCount,
      });
      http = await buildHttpServer(
        {
          config,
          app: context,
          runners: reactions ? [runner, reactions] : [runner],
          feed: data.feed,
          principals: data.principals,
          // the worker's appends (print files, ready) are told in its own process only
          appendsOnFeed: !config.eventStoreUrl && has(role, 'worker'),
          readiness,
          door,
          throttle: new AuthThrottle(data.db.pool),
          metrics: metricsRoute,
          pollers,
          temporalUiUrl: temporal?.uiUrl,
        },
        log,
      );
      // a queue of connections waiting to be accepted as long as the kernel allows (it caps
      // it at net.core.somaxconn): with Node's 511, a flood of 2,000 clients at once
      // overflowed it and the odd connection was dropped instead of waiting its turn
      url = await http.listen({ port: config.port, host: config.host, backlog: 4096 });
      const server = http;
      stops.add(() => server.close());
    } else {
      const health = await startHealthServer(readiness, metricsRoute, log, {
        port: config.healthPort,
        host: config.host,
      });
      healthUrl = health.url;
      stops.add(() => health.close());
    }
    return {
      context,
      db: data.db,
      store: data.store,
      storage: data.storage,
      images: data.images,
      runner,
      reactions,
      http,
      door,
      temporal,
      url,
      healthUrl,
      partnerSimulator,
      stop: () => stops.run(),
    };
  } catch (err) {
    await stops.run();
    throw err;
  }
}

/** The projector role: every projection, and the clean-up of design images nothing holds. */
function startProjector(
  config: Config,
  data: DataParts,
  runner: ProjectionRunner,
  log: Logger,
  stops: Stops,
): void {
  runner.start();
  stops.add(() => runner.stop());
  const cleanup = scheduleImageCleanup(
    { pool: data.db.pool, store: data.store, runner, images: data.images },
    config.imageCleanup,
    log.child({ part: 'image-cleanup' }),
  );
  stops.add(() => cleanup.stop());
}

/**
 * The embedded default's stand-in for a partner's login system (seed-demo wires the demo label to
 * it).
 */
async function startSimulator(
  config: Config,
  log: Logger,
  stops: Stops,
): Promise<{ url: string } | undefined> {
  if (!config.partnerSimulator) return undefined;
  const apiKey = persistedSecret(config.dataDir, 'partner-sim-api-key').value;
  // a convenience, not a dependency: a busy port leaves it out instead of stopping the start
  const sim = await startPartnerSimulator({
    apiKey,
    port: config.port === 0 ? 0 : config.port + 1,
    host: config.host,
    usersFile: path.join(config.dataDir, 'partner-sim-users.json'),
  }).catch((err: Error) => {
    log.warn({ error: err.message }, 'partner simulator not started');
    return undefined;
  });
  if (!sim) return undefined;
  stops.add(() => sim.stop());
  log.info({ url: sim.url }, 'partner simulator started (PARTNER_SIMULATOR=off to leave it out)');
  return { url: sim.url };
}

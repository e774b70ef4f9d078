import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { allProjections } from '../../projections/index.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { type Activities, createActivities } from '../activities/index.ts';
import { type Config, persistedSecret, type Role } from '../config.ts';
import { ChangeFeed } from '../db/change-feed.ts';
import { connectPostgres, type Database, inTransaction, openPglite } from '../db/database.ts';
import { EsdbEventStore } from '../eventstore/esdb.ts';
import type { EventStore } from '../eventstore/port.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import type { ReadinessCheck } from '../http/deps.ts';
import { buildHttpServer } from '../http/server.ts';
import { startPartnerSimulator } from '../partner/simulator.ts';
import { FilesystemStorage } from '../storage/filesystem.ts';
import type { FileStorage } from '../storage/port.ts';
import { type LocalTemporal, startLocalTemporal } from '../temporal/dev-server.ts';
import {
  connectClient,
  createWorker,
  installTemporalRuntime,
  type TemporalTarget,
} from '../temporal/worker.ts';
import { KEY_OWNER_STREAMS } from './auth.ts';
import { ENCRYPTION_KEYS_SCHEMA } from './encryption-keys.ts';
import { scheduleImageCleanup } from './image-cleanup.ts';
import { LoginGuard } from './login-guard.ts';
import { StreamStateCache } from './stream-state-cache.ts';

export interface App {
  db: Database;
  store: EventStore;
  storage: FileStorage;
  runner: ProjectionRunner;
  http: FastifyInstance | undefined;
  temporal: { client: Client; target: TemporalTarget } | undefined;
  /** the bound address of the HTTP server, when the role serves HTTP */
  url: string | undefined;
  partnerSimulator: { url: string } | undefined;
  stop(): Promise<void>;
}

const has = (role: Role | Role[], part: Exclude<Role, 'all'>) => {
  const roles = Array.isArray(role) ? role : [role];
  return roles.includes('all') || roles.includes(part);
};

/**
 * The composition root: builds the adapters the configuration asks for, wires them and
 * starts the parts of the role. Every part it started is stopped by `stop`, in reverse.
 */
export interface StartOptions {
  /** wraps the worker's activities (fault injection in tests) */
  wrapActivities?: (activities: Activities) => Activities;
}

export async function startApp(
  config: Config,
  role: Role | Role[],
  log: Logger,
  options: StartOptions = {},
): Promise<App> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((err) => log.error({ err }, 'stop failed'));
  };
  try {
    const db = config.databaseUrl
      ? await connectPostgres(config.databaseUrl)
      : await openPglite(config.dataDir);
    stops.push(() => db.close());
    log.info({ database: db.kind }, 'database ready');

    // what changed, for the caches: PGlite lives in this process alone; PostgreSQL tells
    // other processes' changes by notification
    const feed = config.databaseUrl
      ? await ChangeFeed.listening(config.databaseUrl, log.child({ part: 'change-feed' }))
      : ChangeFeed.inProcess();
    stops.push(() => feed.close());

    let store: EventStore;
    let principals: StreamStateCache | undefined;
    if (config.eventStoreUrl) {
      // EventStoreDB's appends are not notified to the feed: keys are read on each request
      store = new EsdbEventStore(config.eventStoreUrl);
    } else {
      store = new PostgresEventStore(db.pool, (streamId) =>
        feed.publish({ kind: 'stream', streamId }),
      );
      principals = new StreamStateCache(feed);
    }
    stops.push(() => store.close());

    const storage = await FilesystemStorage.open(path.join(config.dataDir, 'print-files'));
    const images = await FilesystemStorage.open(path.join(config.dataDir, 'images'));
    const runner = new ProjectionRunner(
      db.pool,
      store,
      allProjections,
      log.child({ part: 'projector' }),
      {
        onCommit: (projection, phase) => feed.publish({ kind: 'readModel', projection, phase }),
        wakeups: store instanceof PostgresEventStore ? store.appended : undefined,
      },
    );
    // one process creates the schema at a time (api, worker and projector may start together)
    await inTransaction(db.pool, async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('editor-platform:schema'))");
      if (store instanceof PostgresEventStore)
        await PostgresEventStore.migrate(tx, KEY_OWNER_STREAMS);
      await tx.query(ENCRYPTION_KEYS_SCHEMA);
      await runner.migrate(tx);
    });
    if (has(role, 'projector')) {
      runner.start();
      stops.push(() => runner.stop());
      const cleanup = scheduleImageCleanup(
        { pool: db.pool, store, runner, images },
        config.imageCleanup,
        log.child({ part: 'image-cleanup' }),
      );
      stops.push(() => cleanup.stop());
    }

    let temporal: App['temporal'];
    const readiness: ReadinessCheck[] = [
      { name: 'database', check: async () => void (await db.pool.query('SELECT 1')) },
      { name: 'eventStore', check: () => store.ping() },
    ];
    if (has(role, 'api') || has(role, 'worker')) {
      installTemporalRuntime(log.child({ part: 'temporal' }));
      let address = config.temporal.address;
      if (!address) {
        const local: LocalTemporal = await startLocalTemporal({
          cliPath: config.temporal.cliPath,
          dbFile: path.join(config.dataDir, 'temporal.sqlite'),
          namespace: config.temporal.namespace,
        });
        stops.push(() => local.stop());
        address = local.address;
        log.info({ address }, 'local Temporal dev server started');
      }
      const target = {
        address,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
      };
      const { client, close } = await connectClient(target);
      stops.push(close);
      temporal = { client, target };
      readiness.push({
        name: 'temporal',
        check: async () => void (await client.connection.workflowService.getSystemInfo({})),
      });
      if (has(role, 'worker')) {
        const activities = createActivities({ store, storage, images });
        const w = await createWorker(target, options.wrapActivities?.(activities) ?? activities);
        const running = w.run();
        stops.push(async () => {
          w.worker.shutdown();
          await running;
          await w.close();
        });
      }
    }

    let partnerSimulator: App['partnerSimulator'];
    if (has(role, 'api') && config.partnerSimulator) {
      // the embedded default's stand-in for a partner's login system (seed-demo wires the demo label to it)
      const apiKey = persistedSecret(config.dataDir, 'partner-sim-api-key').value;
      // a convenience, not a dependency: a busy port leaves it out instead of stopping the start
      const sim = await startPartnerSimulator({
        apiKey,
        port: config.port === 0 ? 0 : config.port + 1,
        host: config.host,
      }).catch((err: Error) => {
        log.warn({ error: err.message }, 'partner simulator not started');
        return undefined;
      });
      if (sim) {
        stops.push(() => sim.stop());
        partnerSimulator = { url: sim.url };
        log.info(
          { url: sim.url },
          'partner simulator started (PARTNER_SIMULATOR=off to leave it out)',
        );
      }
    }

    let http: FastifyInstance | undefined;
    let url: string | undefined;
    if (has(role, 'api')) {
      http = await buildHttpServer(
        {
          config,
          store,
          pool: db.pool,
          runner,
          feed,
          principals,
          readiness,
          loginGuard: new LoginGuard(),
          storage,
          images,
          temporal: temporal && { client: temporal.client, taskQueue: temporal.target.taskQueue },
        },
        log,
      );
      url = await http.listen({ port: config.port, host: config.host });
      stops.push(() => http!.close());
    }
    return { db, store, storage, runner, http, temporal, url, partnerSimulator, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

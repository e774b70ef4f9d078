import type { Logger } from 'pino';
import { KEY_OWNER_STREAMS } from '../app/auth.ts';
import { AUTH_THROTTLE_SCHEMA } from '../app/auth-throttle.ts';
import { type CachedReads, cachedReads } from '../app/cached-reads.ts';
import { FoldedStates } from '../app/folded-states.ts';
import { StreamStateCache } from '../app/stream-state-cache.ts';
import type { Config } from '../config.ts';
import { API_PROCESSES_SCHEMA } from '../db/api-processes.ts';
import { AUDIT_HEADS_SCHEMA } from '../db/audit-heads.ts';
import { ChangeFeed } from '../db/change-feed.ts';
import { connectPostgres, type Database, inTransaction, openPglite } from '../db/database.ts';
import { ENCRYPTION_KEYS_SCHEMA } from '../db/encryption-keys.ts';
import type { OrderState } from '../domain/order/decider.ts';
import { EsdbEventStore } from '../eventstore/esdb.ts';
import type { EventStore } from '../eventstore/port.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import { openStore, type StoreLocation } from '../storage/location.ts';
import type { FileStorage } from '../storage/port.ts';
import type { Stops } from './stops.ts';

/** the orders in production now; an older one is read whole again at its next step */
const ORDERS_KEPT = 1_000;

export interface DataParts {
  db: Database;
  /** what changed, for this process's caches */
  feed: ChangeFeed;
  store: EventStore;
  /** API key owners' states; absent when the event store's appends are not on the feed */
  principals: StreamStateCache | undefined;
  /** print files */
  storage: FileStorage;
  /** design images, content-addressed */
  images: FileStorage;
  /** where both live, for processes that open them on their own */
  stores: StoreLocation;
  /**
   * Orders' states as this process last appended them: the next step on an order
   * decides on it unread, and its append at that revision proves it current. Absent on
   * EventStoreDB, whose client does not tell an idempotent append's duplicate.
   */
  orderStates: FoldedStates<OrderState> | undefined;
  /** read-model queries every order repeats, answered from memory until they change */
  reads: CachedReads;
}

/**
 * The database (PostgreSQL, or PGlite embedded), the event store, the change feed and file storage.
 */
export async function openData(config: Config, log: Logger, stops: Stops): Promise<DataParts> {
  const db = config.databaseUrl
    ? await connectPostgres(config.databaseUrl)
    : await openPglite(config.dataDir);
  stops.add(() => db.close());
  log.info({ database: db.kind }, 'database ready');

  // PGlite lives in this process alone; PostgreSQL tells other processes' changes by notification
  const feed = config.databaseUrl
    ? await ChangeFeed.listening(config.databaseUrl, log.child({ part: 'change-feed' }))
    : ChangeFeed.inProcess();
  stops.add(() => feed.close());

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
  stops.add(() => store.close());

  // S3 when configured (every host sees every file), else folders under DATA_DIR
  const stores: StoreLocation = config.storage
    ? { s3: config.storage }
    : { dataDir: config.dataDir };
  const storage = await openStore(stores, 'print-files');
  const images = await openStore(stores, 'images');
  const orderStates =
    store.kind === 'postgres' ? new FoldedStates<OrderState>(ORDERS_KEPT) : undefined;
  const reads = cachedReads(db.pool, feed);
  return { db, feed, store, principals, storage, images, stores, orderStates, reads };
}

/**
 * Creates what is missing of the schema: the event store's tables, the encryption keys,
 * the checkpoints and every read model. One process at a time (api, worker and projector
 * may start together).
 */
export async function migrateSchema(
  data: DataParts,
  runners: { migrate(db: Database['pool']): Promise<void> }[],
): Promise<void> {
  await inTransaction(data.db.pool, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('editor-platform:schema'))");
    if (data.store instanceof PostgresEventStore)
      await PostgresEventStore.migrate(tx, KEY_OWNER_STREAMS);
    await tx.query(ENCRYPTION_KEYS_SCHEMA);
    await tx.query(AUDIT_HEADS_SCHEMA);
    await tx.query(AUTH_THROTTLE_SCHEMA);
    await tx.query(API_PROCESSES_SCHEMA);
    for (const r of runners) await r.migrate(tx as unknown as Database['pool']);
  });
}

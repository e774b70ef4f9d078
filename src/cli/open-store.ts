import { loadConfig } from '../config.ts';
import { connectPostgres, type Database, openPglite } from '../db/database.ts';
import { EsdbEventStore } from '../eventstore/esdb.ts';
import type { EventStore } from '../eventstore/port.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';

/**
 * The database and event store the service is configured with, for a command run beside
 * it (the embedded database only while the service is stopped: one process opens it).
 */
export async function openConfigured(): Promise<{ db: Database; store: EventStore }> {
  const { config } = loadConfig();
  const db = config.databaseUrl
    ? await connectPostgres(config.databaseUrl)
    : await openPglite(config.dataDir);
  const store: EventStore = config.eventStoreUrl
    ? new EsdbEventStore(config.eventStoreUrl)
    : new PostgresEventStore(db.pool);
  return { db, store };
}

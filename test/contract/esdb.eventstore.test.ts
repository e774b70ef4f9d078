import { afterAll, describe, inject, it } from 'vitest';
import { connectPostgres } from '../../src/db/database.ts';
import { EsdbEventStore } from '../../src/eventstore/esdb.ts';
import { createDatabase } from '../helpers/postgres-cluster.ts';
import { auditTreeContract } from './audit-tree.contract.ts';
import { eventStoreContract } from './eventstore.contract.ts';

/**
 * EventStoreDB runs where EVENTSTORE_URL is set, or through testcontainers where a
 * Docker engine answers. Neither exists on the build machines, so there the suite is
 * reported as skipped, with the reason in its name.
 */
async function eventStoreUrl(): Promise<{
  url?: string;
  stop?: () => Promise<unknown>;
  reason: string;
}> {
  if (process.env.EVENTSTORE_URL) return { url: process.env.EVENTSTORE_URL, reason: '' };
  try {
    const { getContainerRuntimeClient, GenericContainer, Wait } = await import('testcontainers');
    await getContainerRuntimeClient();
    const container = await new GenericContainer('kurrentplatform/kurrentdb:26.1.1')
      .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_MEM_DB: 'true' })
      .withExposedPorts(2113)
      .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
      .start();
    return {
      url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
      stop: () => container.stop(),
      reason: '',
    };
  } catch (err) {
    return {
      reason: `no EVENTSTORE_URL and no Docker engine (${(err as Error).message.split('\n')[0]})`,
    };
  }
}

const target = await eventStoreUrl();
if (target.url) {
  const url = target.url;
  afterAll(async () => {
    await target.stop?.();
  });
  eventStoreContract('EventStoreDB', async () => {
    const store = new EsdbEventStore(url);
    return {
      store,
      async cleanup() {
        await store.close();
      },
    };
  });
  // the tree of EventStoreDB's log, kept in PostgreSQL as the service keeps it
  auditTreeContract('EventStoreDB', async () => {
    const store = new EsdbEventStore(url);
    const db = await connectPostgres(await createDatabase(inject('postgresUrl')), 4);
    return {
      store,
      pool: db.pool,
      async cleanup() {
        await store.close();
        await db.close();
      },
    };
  });
} else {
  describe('event store contract: EventStoreDB', () => {
    it.skip(`skipped: ${target.reason}`, () => {});
  });
}

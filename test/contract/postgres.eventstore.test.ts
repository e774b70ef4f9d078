import { inject } from 'vitest';
import { connectPostgres } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { createDatabase } from '../helpers/postgres-cluster.ts';
import { eventStoreContract } from './eventstore.contract.ts';

eventStoreContract('PostgreSQL', async () => {
  const db = await connectPostgres(await createDatabase(inject('postgresUrl')), 12);
  await PostgresEventStore.migrate(db.pool);
  const store = new PostgresEventStore(db.pool);
  return { store, cleanup: () => db.close() };
});

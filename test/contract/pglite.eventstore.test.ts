import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPglite } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { auditTreeContract } from './audit-tree.contract.ts';
import { eventStoreContract } from './eventstore.contract.ts';

eventStoreContract('PGlite (embedded)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pglite-contract-'));
  const db = await openPglite(dir);
  await PostgresEventStore.migrate(db.pool);
  const store = new PostgresEventStore(db.pool);
  return {
    store,
    async cleanup() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

auditTreeContract('PGlite (embedded)', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pglite-audit-'));
  const db = await openPglite(dir);
  await PostgresEventStore.migrate(db.pool);
  return {
    store: new PostgresEventStore(db.pool),
    pool: db.pool,
    async cleanup() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

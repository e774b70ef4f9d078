// npm run projections:rebuild -- <name>
// Drops a projection's tables, resets its checkpoint and replays every event. When a
// running instance holds the projection, it does the replay; this waits until done.
import { allProjections } from '#projections/index';
import { ProjectionRunner } from '#projections/projection-runner';
import { createLogger } from '../app/logger.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { connectPostgres, openPglite } from '../db/database.ts';
import { EsdbEventStore } from '../eventstore/esdb.ts';
import type { EventStore } from '../eventstore/port.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';

async function main() {
  const name = process.argv[2];
  const names = allProjections.map((p) => p.name);
  if (!name || !names.includes(name)) {
    console.error(`usage: npm run projections:rebuild -- <name>   (one of: ${names.join(', ')})`);
    process.exit(2);
  }
  const { config } = loadConfig();
  const db = config.databaseUrl
    ? await connectPostgres(config.databaseUrl)
    : await openPglite(config.dataDir);
  const store: EventStore = config.eventStoreUrl
    ? new EsdbEventStore(config.eventStoreUrl)
    : new PostgresEventStore(db.pool);
  const runner = new ProjectionRunner(db.pool, store, allProjections, createLogger('warn'));
  try {
    await runner.migrate();
    await runner.reset(name);
    const began = Date.now();
    if (!(await runner.catchUp(name))) {
      console.log(`${name}: a running instance holds it and replays it; waiting`);
      for (;;) {
        const s = (await runner.status()).find((p) => p.name === name)!;
        if (s.behind === 0) break;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    const s = (await runner.status()).find((p) => p.name === name)!;
    console.log(`${name}: rebuilt in ${Date.now() - began} ms, ${s.behind} events behind`);
  } finally {
    await store.close();
    await db.close();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});

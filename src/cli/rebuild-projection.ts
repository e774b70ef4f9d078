// npm run projections:rebuild -- <name>
// Drops a projection's tables, resets its checkpoint and replays every event. When a
// running instance holds the projection, it does the replay; this waits until done.
import { allProjections } from '#projections/index';
import { ProjectionRunner } from '#projections/projection-runner';
import { createLogger } from '../app/logger.ts';
import { ConfigError } from '../config.ts';
import { openConfigured } from './open-store.ts';

async function main() {
  const name = process.argv[2];
  const names = allProjections.map((p) => p.name);
  if (!name || !names.includes(name)) {
    console.error(`usage: npm run projections:rebuild -- <name>   (one of: ${names.join(', ')})`);
    process.exit(2);
  }
  const { db, store } = await openConfigured();
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

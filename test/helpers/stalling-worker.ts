// A worker process for the crash test: a real worker whose render process puts the print
// file and which then stalls before the activity can record it, so the test can kill
// the process at that point. Run with DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE,
// DATA_DIR; prints "stalled <key>" when it is there.
import path from 'node:path';
import { createActivities } from '../../src/activities/index.ts';
import { loadConfig } from '../../src/config.ts';
import { connectPostgres } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { Renders } from '../../src/print/image-work.ts';
import { Impositions } from '../../src/production/imposition-work.ts';
import { FilesystemStorage } from '../../src/storage/filesystem.ts';
import { createWorker } from '../../src/temporal/worker.ts';

const { config } = loadConfig();
const db = await connectPostgres(config.databaseUrl!);
const store = new PostgresEventStore(db.pool);
const renders = new Renders(1, 60_000);
const worker = await createWorker(
  {
    address: config.temporal.address!,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
  },
  createActivities({
    store,
    storage: await FilesystemStorage.open(path.join(config.dataDir, 'print-files')),
    images: await FilesystemStorage.open(path.join(config.dataDir, 'images')),
    stores: { dataDir: config.dataDir },
    impositions: new Impositions(),
    renders: {
      async render(owner, job) {
        const rendered = await renders.render(owner, job);
        if (!rendered.file.storageKey) return rendered;
        console.log(`stalled ${rendered.file.storageKey}`);
        return new Promise(() => {}); // until the process is killed
      },
      renderVariable: (owner, job, records) => renders.renderVariable(owner, job, records),
      reprintVariable: (owner, job, records) => renders.reprintVariable(owner, job, records),
    },
    db: db.pool,
  }),
);
console.log('worker running');
await worker.run();

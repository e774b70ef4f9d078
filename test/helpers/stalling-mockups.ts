// A process for the mockup crash test: the order-mockups reactor (under the name given
// as its argument, so it reads the log from its start) whose file storage writes a
// mockup and then stalls before the reactor can record it, so the test can kill the
// process there. Run with DATABASE_URL and DATA_DIR; prints "stalled <key>" when it is.
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { connectPostgres } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { MockupDrawing } from '../../src/print/image-work.ts';
import { mockupsReactor } from '../../src/reactions/mockups.ts';
import { ReactionRunner } from '../../src/reactions/reactor.ts';
import { FilesystemStorage } from '../../src/storage/filesystem.ts';
import { stallingStorage } from './stalling-storage.ts';

const { config } = loadConfig();
const db = await connectPostgres(config.databaseUrl!);
const store = new PostgresEventStore(db.pool);
const real = await FilesystemStorage.open(path.join(config.dataDir, 'print-files'));
const stalling = stallingStorage(real, (key) => key.includes('/mockup-'));
const reactor = mockupsReactor({
  store,
  pool: db.pool,
  storage: stalling,
  images: await FilesystemStorage.open(path.join(config.dataDir, 'images')),
  drawing: new MockupDrawing({ processes: 1, timeoutMs: 60_000, nice: 0 }),
  quiet: async () => {},
});
new ReactionRunner(
  db.pool,
  store,
  [{ ...reactor, name: process.argv[2]! }],
  pino({ level: 'silent' }),
).start();
console.log('reactor running');

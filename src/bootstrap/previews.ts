import type { Logger } from 'pino';
import type { DrawPreviews } from '../app/context.ts';
import type { Config } from '../config.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import { previewsReactor } from '../reactions/previews.ts';
import { ReactionRunner } from '../reactions/reactor.ts';
import type { DataParts } from './data.ts';

/** The runner of the previews reactor (started by the worker role). */
export function createPreviewRunner(
  config: Config,
  data: DataParts,
  draw: DrawPreviews,
  log: Logger,
): ReactionRunner {
  return new ReactionRunner(
    data.db.pool,
    data.store,
    [previewsReactor(data.storage, draw)],
    log.child({ part: 'previews' }),
    {
      batchSize: 20,
      parkAfter: config.parkAfter,
      wakeups: data.store instanceof PostgresEventStore ? data.store.appended : undefined,
    },
  );
}

import type { Logger } from 'pino';
import type { DrawPreviews } from '../app/context.ts';
import type { Config } from '../config.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import type { MockupDrawing } from '../print/image-work.ts';
import { mockupsReactor } from '../reactions/mockups.ts';
import { previewsReactor } from '../reactions/previews.ts';
import { proofsReactor } from '../reactions/proofs.ts';
import { ReactionRunner } from '../reactions/reactor.ts';
import type { DataParts } from './data.ts';

/**
 * The runner of what follows a print file at the lowest priority (started by the worker
 * role): its page previews, its item's proof (when it waits for approval) and mockups,
 * each once the renders leave room.
 */
export function createPreviewRunner(
  config: Config,
  data: DataParts,
  draw: { previews: DrawPreviews; mockups: MockupDrawing; quiet: () => Promise<void> },
  log: Logger,
): ReactionRunner {
  return new ReactionRunner(
    data.db.pool,
    data.store,
    [
      previewsReactor(data.storage, async (pdf) => {
        await draw.quiet();
        return draw.previews(pdf);
      }),
      proofsReactor({
        store: data.store,
        storage: data.storage,
        drawing: draw.mockups,
        quiet: draw.quiet,
      }),
      mockupsReactor({
        store: data.store,
        pool: data.db.pool,
        reads: data.reads,
        ...(data.orderStates ? { orderStates: data.orderStates } : {}),
        storage: data.storage,
        images: data.images,
        drawing: draw.mockups,
        quiet: draw.quiet,
      }),
    ],
    log.child({ part: 'previews' }),
    {
      batchSize: 20,
      parkAfter: config.parkAfter,
      wakeups: data.store instanceof PostgresEventStore ? data.store.appended : undefined,
    },
  );
}

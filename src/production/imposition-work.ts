import { IMAGE_PROCESS, IMAGE_V8_FLAGS } from '../print/image-work.ts';
import { ProcessPool } from '../print/process-pool.ts';
import type { StoredImposition, StoredImpositionJob } from './stored-imposition.ts';

export interface ImpositionSettings {
  /** processes at most */
  processes: number;
  /** how long one imposition may take before its process is killed */
  timeoutMs: number;
}

export const defaultImpositionSettings = (): ImpositionSettings => ({
  processes: 1,
  timeoutMs: 10 * 60_000,
});

/**
 * Press runs imposed in pool processes (see stored-imposition.ts): the layout, the
 * sheets' drawing and preflight never run on the worker's event loop, a run past its
 * time limit is killed, and labels take turns: one label's impositions run one at a
 * time.
 */
export class Impositions {
  private readonly pool: ProcessPool;

  constructor(settings: ImpositionSettings = defaultImpositionSettings(), nice = 5) {
    this.pool = new ProcessPool({
      name: 'imposition',
      module: IMAGE_PROCESS,
      size: settings.processes,
      deadlineMs: settings.timeoutMs,
      // a label's impositions one at a time; how many wait is bounded where batches are asked
      // for (MAX_BATCHES_UNDER_WAY): a refusal here would only make Temporal retry
      perOwner: 1,
      idleMs: 60_000,
      maxHeapMiB: 2048,
      v8Flags: IMAGE_V8_FLAGS,
      nice,
    });
  }

  /**
   * Imposes a batch of the label (the owner), telling `whileWorking` every few seconds
   * meanwhile; `signal` calls it off (its process is killed).
   */
  impose(
    labelId: string,
    job: StoredImpositionJob,
    options: { whileWorking?: () => void; signal?: AbortSignal } = {},
  ): Promise<StoredImposition> {
    const { whileWorking, signal } = options;
    const beat = whileWorking ? setInterval(whileWorking, 5000) : undefined;
    return this.pool
      .run<StoredImposition>('imposeStored', job, { owner: labelId, ...(signal ? { signal } : {}) })
      .finally(() => clearInterval(beat));
  }

  get pids(): number[] {
    return this.pool.pids;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

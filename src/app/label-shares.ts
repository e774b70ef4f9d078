import type pg from 'pg';
import { changedShares } from '#projections/labels';
import type { ApiProcesses } from '../db/api-processes.ts';
import type { ChangeFeed } from '../db/change-feed.ts';

/** how often the factors are read again when no change was told (the feed down) */
const REFRESH_MS = 10_000;

/**
 * What the door needs to know of the deployment, kept at hand so that its check is a
 * lookup: each label's factor on the shares (read again when the labels' read model
 * changes, and every REFRESH_MS) and how many API processes split them.
 */
export class DeploymentShares {
  private factors = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private reading: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly feed: ChangeFeed,
    /** absent where only one API process can run (the embedded database) */
    private readonly processes: ApiProcesses | undefined,
  ) {}

  readonly factorOf = (labelId: string): number => this.factors.get(labelId) ?? 1;
  readonly processCount = (): number => this.processes?.count ?? 1;

  async start(): Promise<void> {
    await this.processes?.start();
    await this.refresh();
    this.unsubscribe = this.feed.subscribe((change) => {
      const labels =
        change.kind === 'unknown' ||
        (change.kind === 'readModel' &&
          change.projection === 'labels' &&
          change.phase !== 'committing');
      if (labels) this.refresh().catch(() => {});
    });
    this.timer = setInterval(() => this.refresh().catch(() => {}), REFRESH_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.processes?.stop();
  }

  /** Reads the factors again; a call while one read is under way makes one more after it. */
  refresh(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      try {
        do {
          this.again = false;
          this.factors = await changedShares(this.pool);
        } while (this.again);
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }
}

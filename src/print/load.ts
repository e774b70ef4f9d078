import os from 'node:os';

/**
 * How busy this process is rendering print files, and how many renders it lets run at
 * once. Renders beyond the limit (by default one per core) wait their turn: forty
 * renders interleaved on two cores finish no sooner than two at a time, but hold forty
 * files' worth of memory and fight over caches and the garbage collector. Previews (a
 * convenience) wait until no print file has been rendered for a moment, so they never
 * take a core a print file needs (a low thread priority alone does not keep them off a
 * core's other hyperthread).
 */
export class RenderLoad {
  private active = 0;
  private lastEnd = 0;
  private readonly idleWaiters = new Set<() => void>();
  private readonly turns: (() => void)[] = [];

  constructor(private limit = Math.max(1, os.availableParallelism())) {}

  /** at most `limit` renders at once (RENDER_CONCURRENCY) */
  setLimit(limit: number): void {
    this.limit = Math.max(1, limit);
    while (this.active < this.limit && this.turns.length > 0) {
      this.active++;
      this.turns.shift()!();
    }
  }

  /**
   * Resolves when this render may run; `whileWaiting` is called every few seconds until
   * then (a Temporal heartbeat: a render waiting its turn is not a dead worker).
   */
  async begin(whileWaiting?: () => void): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    const timer = whileWaiting ? setInterval(whileWaiting, 5000) : undefined;
    try {
      // the render that ends hands its place over: `active` counts this one already
      await new Promise<void>((resolve) => this.turns.push(resolve));
    } finally {
      clearInterval(timer);
    }
  }

  /** Takes a place only when one is free now and nobody waits for one. */
  tryBegin(): boolean {
    if (this.active >= this.limit || this.turns.length > 0) return false;
    this.active++;
    return true;
  }

  end(): void {
    this.lastEnd = Date.now();
    // the place passes to the next in line, unless a lowered limit takes it back
    if (this.active <= this.limit && this.turns.length > 0) {
      this.turns.shift()!();
      return;
    }
    this.active = Math.max(0, this.active - 1);
    if (this.active === 0) for (const w of this.idleWaiters) w();
  }

  /** renders running now */
  get running(): number {
    return this.active;
  }

  /** renders waiting for their turn */
  get waiting(): number {
    return this.turns.length;
  }

  /**
   * Resolves once no render has run for `quietMs`, or after `maxWaitMs` at the latest
   * (a worker that never stops rendering still draws its previews, only later).
   */
  async idle(quietMs: number, maxWaitMs = 60_000): Promise<void> {
    const giveUpAt = Date.now() + maxWaitMs;
    for (;;) {
      if (Date.now() >= giveUpAt) return;
      const quiet = Date.now() - this.lastEnd;
      if (this.active === 0 && quiet >= quietMs) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.idleWaiters.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(
          done,
          Math.min(giveUpAt - Date.now(), this.active === 0 ? quietMs - quiet : quietMs),
        );
        this.idleWaiters.add(done);
      });
    }
  }
}

/** The process's renders (the worker's activities and the preview runner share it). */
export const renderLoad = new RenderLoad();

import type { RenderLoad } from './load.ts';

/** A render started ahead of the activity that will want it. */
export interface Ahead<T> {
  /** what the render was made from: the activity takes it only for the same key */
  key: string;
  result: Promise<T>;
  /** performance.now() when it began rendering */
  began: number;
}

export type AheadOutcome = 'taken' | 'unclaimed';

/**
 * Renders started before anyone asked for them, each on a render slot that was free at
 * that moment (never queued: in a burst every slot is taken by the activities, so
 * nothing is rendered ahead). A render is taken once, by the same id and key; one not
 * taken within `keepMs`, or asked for with another key (the order changed meanwhile),
 * is dropped. Rendering is deterministic, so what is taken is what the taker would
 * have rendered itself.
 */
export class RendersAhead<T> {
  private readonly pending = new Map<string, Ahead<T> & { timer: NodeJS.Timeout }>();

  constructor(
    private readonly load: Pick<RenderLoad, 'tryBegin' | 'end'>,
    private readonly observe: (outcome: AheadOutcome) => void = () => {},
    private readonly keepMs = 30_000,
  ) {}

  /**
   * Starts `run` for `id` when a render slot is free now; the slot is held until the
   * render ended. False when none was free (or `id` is rendering ahead already).
   */
  start(id: string, key: string, run: () => Promise<T>): boolean {
    if (this.pending.has(id) || !this.load.tryBegin()) return false;
    const began = performance.now();
    let result: Promise<T>;
    try {
      result = run();
    } catch (err) {
      result = Promise.reject(err);
    }
    result = result.finally(() => this.load.end());
    // a render nobody takes fails nobody: its rejection is seen by the taker only
    result.catch(() => {});
    const timer = setTimeout(() => this.drop(id), this.keepMs);
    timer.unref();
    this.pending.set(id, { key, result, began, timer });
    return true;
  }

  /** The render started ahead for `id`, if it was made from `key`; each is taken once. */
  take(id: string, key: string): Ahead<T> | undefined {
    const found = this.pending.get(id);
    if (!found) return undefined;
    if (found.key !== key) {
      this.drop(id);
      return undefined;
    }
    clearTimeout(found.timer);
    this.pending.delete(id);
    this.observe('taken');
    return { key: found.key, result: found.result, began: found.began };
  }

  /** renders started ahead and not taken yet */
  get size(): number {
    return this.pending.size;
  }

  /** Drops every render not taken (the worker stops). */
  clear(): void {
    for (const id of [...this.pending.keys()]) this.drop(id);
  }

  private drop(id: string): void {
    const found = this.pending.get(id);
    if (!found) return;
    clearTimeout(found.timer);
    this.pending.delete(id);
    this.observe('unclaimed');
  }
}

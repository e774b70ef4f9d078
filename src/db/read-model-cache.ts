import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from './change-feed.ts';

/**
 * Answers of queries on some read models, kept until one of those read models changes
 * (told by the change feed: this process's projector before its commit, another's at
 * its commit). A read that overlapped a change is not kept; while the feed is not live
 * or this process is committing to them, every read goes to the database. Each caller
 * gets its own copy.
 */
export class ReadModelCache<V> {
  private readonly answers: LRUCache<string, { value: V }>;
  private generation = 0;
  private committing = 0;

  constructor(
    private readonly feed: ChangeFeed,
    readModels: string[],
    max = 10_000,
  ) {
    this.answers = new LRUCache({ max });
    const relevant = new Set(readModels);
    feed.subscribe((change) => {
      if (change.kind === 'stream') return;
      if (change.kind === 'readModel') {
        if (!relevant.has(change.projection)) return;
        if (change.phase === 'committing') this.committing++;
        if (change.phase === 'committed') this.committing = Math.max(0, this.committing - 1);
      }
      this.generation++;
      this.answers.clear();
    });
  }

  private get usable(): boolean {
    return this.feed.live && this.committing === 0;
  }

  async get(key: string, read: () => Promise<V>): Promise<V> {
    if (!this.usable) return read();
    const hit = this.answers.get(key);
    if (hit) return structuredClone(hit.value);
    const generation = this.generation;
    const value = await read();
    if (this.usable && generation === this.generation)
      this.answers.set(key, { value: structuredClone(value) });
    return value;
  }
}

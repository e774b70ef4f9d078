import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from '../db/change-feed.ts';

/**
 * Folded states of streams, kept until the change feed says the stream changed. A load
 * that was under way when its stream changed is not kept (it may have read the state
 * before the change); nothing is kept or served while the feed is not live.
 */
export class StreamStateCache {
  private readonly states: LRUCache<string, object>;
  /** loads under way, by stream; a change removes the stream's token */
  private readonly loading = new Map<string, symbol>();

  constructor(
    private readonly feed: ChangeFeed,
    max = 50_000,
  ) {
    this.states = new LRUCache({ max });
    feed.subscribe((change) => {
      if (change.kind === 'stream') {
        this.states.delete(change.streamId);
        this.loading.delete(change.streamId);
      } else if (change.kind === 'unknown') {
        this.states.clear();
        this.loading.clear();
      }
    });
  }

  /** The cached state, or `read()`'s, kept when `keep` says so (e.g. only streams that exist). */
  async load<S extends object>(
    streamId: string,
    read: () => Promise<S>,
    keep: (state: S) => boolean = () => true,
  ): Promise<S> {
    if (!this.feed.live) return read();
    const cached = this.states.get(streamId);
    if (cached) return cached as S;
    const token = Symbol(streamId);
    this.loading.set(streamId, token);
    try {
      const state = await read();
      if (this.feed.live && this.loading.get(streamId) === token && keep(state)) {
        this.states.set(streamId, state);
      }
      return state;
    } finally {
      if (this.loading.get(streamId) === token) this.loading.delete(streamId);
    }
  }
}

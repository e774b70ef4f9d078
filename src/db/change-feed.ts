import pg from 'pg';
import type { Logger } from 'pino';

/** Channels the PostgreSQL side notifies on (see the es_events trigger and the runner). */
export const STREAM_CHANNEL = 'es_streams';
export const READ_MODEL_CHANNEL = 'rm_changed';

export type Change =
  | { kind: 'stream'; streamId: string }
  /**
   * A projection's tables: `committing` (this process's runner is committing a change:
   * do not trust or fill caches of it), `committed` (that commit ended), `seen` (a
   * change was committed, e.g. by another process).
   */
  | { kind: 'readModel'; projection: string; phase: 'committing' | 'committed' | 'seen' }
  /** notifications may have been missed: anything may have changed */
  | { kind: 'unknown' };

/**
 * What changed, for this process's caches: appends and read-model updates made in this
 * process (published synchronously, before the caller answers) and, on PostgreSQL,
 * those of other processes (LISTEN; they arrive within milliseconds of their commit).
 * While the listening connection is down, missed changes cannot be known: `live` is
 * false then and caches must go to the database.
 */
export class ChangeFeed {
  private readonly listeners = new Set<(change: Change) => void>();
  private stopped = false;
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;

  private constructor(public live: boolean) {}

  /** PGlite: one process holds the database, so every change is made here. */
  static inProcess(): ChangeFeed {
    return new ChangeFeed(true);
  }

  /** PostgreSQL: also listens for other processes' changes, reconnecting when it drops. */
  static async listening(url: string, log: Logger): Promise<ChangeFeed> {
    const feed = new ChangeFeed(false);
    await feed.connect(url, log);
    return feed;
  }

  subscribe(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(change: Change): void {
    for (const l of this.listeners) l(change);
  }

  private async connect(url: string, log: Logger): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => this.drop(client, url, log));
    client.on('end', () => this.drop(client, url, log));
    client.on('notification', (n) => {
      if (n.channel === STREAM_CHANNEL && n.payload)
        this.publish({ kind: 'stream', streamId: n.payload });
      else if (n.channel === READ_MODEL_CHANNEL && n.payload)
        this.publish({ kind: 'readModel', projection: n.payload, phase: 'seen' });
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${STREAM_CHANNEL}; LISTEN ${READ_MODEL_CHANNEL}`);
    } catch (err) {
      client.end().catch(() => {});
      throw err;
    }
    if (this.stopped) return void (await client.end());
    this.client = client;
    // whatever was cached before a gap may be stale
    this.publish({ kind: 'unknown' });
    this.live = true;
  }

  private drop(client: pg.Client, url: string, log: Logger): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.live = false;
    this.publish({ kind: 'unknown' });
    client.end().catch(() => {});
    if (this.stopped) return;
    log.warn('change notifications lost; caches go to the database until they are back');
    this.reconnect(url, log);
  }

  private reconnect(url: string, log: Logger): void {
    this.retry = setTimeout(() => {
      this.connect(url, log).catch(() => this.reconnect(url, log));
    }, 1000);
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.live = false;
    await client?.end().catch(() => {});
  }
}

import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { ChangeFeed } from '../db/change-feed.ts';

/** The longest wait a client may ask for (`Prefer: wait=N`, in seconds). */
export const MAX_WAIT_SECONDS = 30;

/** A JSON answer's version, sent as its ETag: equal answers, equal tags, in any process. */
export const versionOf = (answer: unknown): string =>
  `"${createHash('sha256').update(JSON.stringify(answer)).digest('base64url').slice(0, 27)}"`;

/**
 * Whether an If-None-Match header names this version (RFC 9110, weak comparison: a
 * `W/` prefix does not matter; `*` names any).
 */
export function versionKnown(ifNoneMatch: string | undefined, version: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === version);
}

/**
 * The seconds of a `wait` preference (RFC 7240), at most MAX_WAIT_SECONDS; undefined
 * when there is none. A preference that cannot be read is ignored, as the RFC asks.
 */
export function preferredWait(prefer: string | undefined): number | undefined {
  for (const preference of (prefer ?? '').split(',')) {
    const [name, value] = (preference.split(';')[0] ?? '').split('=').map((s) => s.trim());
    if (name?.toLowerCase() !== 'wait' || value === undefined) continue;
    const seconds = /^"?(\d{1,9})"?$/.exec(value)?.[1];
    if (seconds !== undefined) return Math.min(MAX_WAIT_SECONDS, Number(seconds));
  }
  return undefined;
}

/**
 * A signal that fires when the reply's connection closes (the client went away, or it was
 * answered).
 */
export function abortedWith(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => gone.abort());
  return gone.signal;
}

/** how long after an append to its stream a read model's commit is taken as its change */
const APPEND_HINT_MS = 2000;
/** appended streams remembered at most (a burst's worth) */
const MAX_APPEND_HINTS = 10_000;

export interface AnswerWaitsOptions {
  /** waits held at once in this process; a request beyond them is answered at once */
  max: number;
  /**
   * whether the appends that change the answers are told on this process's feed: a wait
   * then reads again at once after its stream's append, and about once a second for
   * other changes (an order's answer also changes with press runs' events); otherwise
   * at most every 100 ms while its read model changes
   */
  appendsOnFeed: boolean;
}

export interface WaitFor<T> {
  read: () => Promise<T>;
  /** the answer differs from what the client has */
  changed: (answer: T) => boolean;
  /** the read model the answer comes from, and the stream whose appends change it */
  readModel: string;
  streamId: string;
  waitMs: number;
  /** the client went away, or the server is closing */
  signal: AbortSignal;
  /** told when the wait is taken (its place among the held ones given) */
  onHeld?: () => void;
}

/**
 * The last answer read, whether it differs from the client's, and whether the wait was
 * taken (not when none was asked for, or every place was held).
 */
export interface Waited<T> {
  answer: T;
  changed: boolean;
  waited: boolean;
}

/**
 * Answers that wait for a change (`Prefer: wait` with `If-None-Match`): a read is
 * repeated when the change feed says its read model committed, never on a timer, unless
 * the feed is down (then once a second).
 */
export class AnswerWaits {
  private held = 0;
  /**
   * streams appended to in the last APPEND_HINT_MS, oldest first: a wait that began
   * between an append and its read model's commit must know of it too
   */
  private readonly appends = new Map<string, number>();

  constructor(
    private readonly feed: ChangeFeed,
    private readonly options: AnswerWaitsOptions,
  ) {
    feed.subscribe((change) => {
      if (change.kind !== 'stream') return;
      const now = Date.now();
      this.appends.delete(change.streamId);
      this.appends.set(change.streamId, now);
      for (const [streamId, at] of this.appends) {
        if (at > now - APPEND_HINT_MS && this.appends.size <= MAX_APPEND_HINTS) break;
        this.appends.delete(streamId);
      }
    });
  }

  private appendedLately(streamId: string, now: number): boolean {
    return (this.appends.get(streamId) ?? 0) > now - APPEND_HINT_MS;
  }

  get waiting(): number {
    return this.held;
  }

  async until<T>(w: WaitFor<T>): Promise<Waited<T>> {
    if (w.waitMs <= 0 || w.signal.aborted || this.held >= this.options.max) {
      const answer = await w.read();
      return { answer, changed: w.changed(answer), waited: false };
    }
    this.held++;
    w.onHeld?.();
    const slowMs = this.options.appendsOnFeed ? 1000 : 100;
    let settle: (r: Waited<T>) => void = () => {};
    let fail: (err: unknown) => void = () => {};
    const outcome = new Promise<Waited<T>>((resolve, reject) => {
      settle = resolve;
      fail = reject;
    });
    let armed = false;
    let noticed = false;
    let lastRead = Date.now();
    let reading = false;
    let again = false;
    let done = false;
    let last = undefined as T | undefined;
    const finish = (changed: boolean) => {
      if (done) return;
      done = true;
      settle({ answer: last as T, changed, waited: true });
    };
    const reread = async (): Promise<void> => {
      if (!armed) {
        noticed = true;
        return;
      }
      if (done) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          lastRead = Date.now();
          last = await w.read();
          if (w.changed(last)) finish(true);
        } while (again && !done);
      } catch (err) {
        done = true;
        fail(err);
      } finally {
        reading = false;
      }
    };
    // subscribed before the first read, so a commit during it is not missed
    const unsubscribe = this.feed.subscribe((change) => {
      if (change.kind === 'stream') return;
      if (change.kind === 'readModel') {
        if (change.projection !== w.readModel || change.phase === 'committing') return;
        const now = Date.now();
        if (!this.appendedLately(w.streamId, now) && now - lastRead < slowMs) return;
      }
      void reread();
    });
    const end = () => finish(false);
    let timer: NodeJS.Timeout | undefined;
    let blind: NodeJS.Timeout | undefined;
    try {
      last = await w.read();
      if (w.changed(last)) return { answer: last, changed: true, waited: true };
      armed = true;
      timer = setTimeout(end, w.waitMs);
      blind = setInterval(() => {
        if (!this.feed.live) void reread();
      }, 1000);
      w.signal.addEventListener('abort', end);
      if (w.signal.aborted) end();
      if (noticed) void reread();
      return await outcome;
    } finally {
      done = true;
      clearTimeout(timer);
      clearInterval(blind);
      unsubscribe();
      w.signal.removeEventListener('abort', end);
      this.held--;
    }
  }
}

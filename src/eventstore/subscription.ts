import type {
  EventStore,
  Position,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from './port.ts';

/**
 * A catch-up subscription built on readAll pages: used by adapters without a push
 * subscription. Polls while idle; `wake` (called after local appends) cuts the wait.
 */
export function pollingSubscription(
  store: Pick<EventStore, 'readAll'>,
  options: SubscribeOptions & { pageSize?: number; idleMs?: number; wakeups?: WakeSignal },
  handler: (event: RecordedEvent) => Promise<void>,
): Subscription {
  let running = true;
  let position: Position = options.from;
  const pageSize = options.pageSize ?? 500;
  const idleMs = options.idleMs ?? 100;
  const wakeups = options.wakeups?.reader();
  const loop = (async () => {
    while (running) {
      try {
        const page = await store.readAll({ after: position, limit: pageSize });
        for (const event of page) {
          if (!running) return;
          await handler(event);
          position = event.position;
        }
        if (page.length < pageSize) {
          await (wakeups?.wait(idleMs) ?? delay(idleMs));
        }
      } catch (err) {
        options.onError?.(err);
        await delay(idleMs * 5);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      wakeups?.close();
      await loop;
    },
  };
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

type Wants = ((types: readonly string[]) => boolean) | undefined;

/** A reader's place at a wake signal: see `WakeSignal.reader`. */
export interface WakeReader {
  /**
   * Resolves once appends of the reader's types happen, or after `maxMs`; at once when
   * some happened since its last wait returned (while it was reading them, or after).
   */
  wait(maxMs: number): Promise<void>;
  close(): void;
}

type ReaderState = { wants: Wants; pending: boolean; wake: (() => void) | undefined };

/**
 * Wakes waiting readers early: when this process appended events (and of which types),
 * or, with a `probe`, when the log's visible head moved for any reason (another
 * process's append, a late commit becoming visible). The probe runs every `probeMs`
 * while someone waits, one query for every reader of the process, instead of each
 * reader polling on its own. It names the head and, when it moved, the types of the
 * events it moved past: only the readers of those types wake (all, when it cannot say).
 * A reader of none of them still wakes at its own time limit, which keeps its lag short.
 */
export class WakeSignal {
  private readonly readers = new Set<ReaderState>();
  private waiting = 0;
  private timer: NodeJS.Timeout | undefined;
  private probing = false;
  private last: string | undefined;

  constructor(
    private readonly probe?: (
      last: string | undefined,
    ) => Promise<{ head: string; types?: readonly string[] | undefined }>,
    private readonly probeMs = 200,
  ) {}

  /** Appends happened: types given, only readers of one of them wake; none, all wake. */
  notify(types?: readonly string[]): void {
    for (const r of this.readers) {
      if (types !== undefined && r.wants !== undefined && !r.wants(types)) continue;
      if (r.wake) r.wake();
      // a reader busy reading now may have read before these appends: it looks again
      else r.pending = true;
    }
  }

  /**
   * A reader that keeps its place between waits, for a loop that reads, handles what it
   * read and waits again: appends of its types while it is handling (after its read)
   * make its next wait return at once instead of waiting out `maxMs`.
   */
  reader(wants?: (types: readonly string[]) => boolean): WakeReader {
    const state: ReaderState = { wants, pending: false, wake: undefined };
    this.readers.add(state);
    return {
      wait: (maxMs) => {
        if (state.pending || !this.readers.has(state)) {
          state.pending = false;
          return Promise.resolve();
        }
        return new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            state.wake = undefined;
            state.pending = false;
            if (--this.waiting === 0) this.stopProbing();
            resolve();
          };
          const timer = setTimeout(done, maxMs);
          state.wake = done;
          this.waiting++;
          this.startProbing();
        });
      },
      close: () => {
        this.readers.delete(state);
        state.wake?.();
      },
    };
  }

  /** Waits at most `maxMs` for appends from now on, of the types `wants` takes when given. */
  async wait(maxMs: number, wants?: (types: readonly string[]) => boolean): Promise<void> {
    const once = this.reader(wants);
    try {
      await once.wait(maxMs);
    } finally {
      once.close();
    }
  }

  /** the head as a probe or a reader last saw it */
  get head(): string | undefined {
    return this.last;
  }

  /** when a reader last told the head (`observed`): a probe within probeMs of it is skipped */
  private observedAt = 0;

  /**
   * A reader saw the head: it read up to the visible end, from at or before the last head
   * known here. `types`: those of the events it saw past that head. Their readers are
   * told as a probe would tell them, and the next probe waits a full interval: while
   * readers keep reading to the end, the probe's query is not needed.
   */
  observed(head: string, types: readonly string[]): void {
    if (this.last !== undefined && head !== this.last && types.length > 0) this.notify(types);
    this.last = head;
    this.observedAt = performance.now();
  }

  /** one chain of probes at a time: a probe in flight when the last waiter left ends it */
  private startProbing(): void {
    if (!this.probe || this.timer || this.probing) return;
    const probe = this.probe;
    const tick = async () => {
      this.timer = undefined;
      const fresh = this.probeMs - (performance.now() - this.observedAt);
      if (fresh > 0) {
        if (this.waiting > 0) this.timer = setTimeout(tick, fresh);
        return;
      }
      this.probing = true;
      const observedBefore = this.observedAt;
      try {
        const { head, types } = await probe(this.last);
        if (this.last !== undefined && head !== this.last) this.notify(types);
        // a reader that told the head while the probe was out may know a later one: it
        // stays (moved back, the readers ahead of it could no longer tell it)
        if (this.observedAt === observedBefore) this.last = head;
      } catch {
        // the store is away: the readers' own time-outs keep them going
      } finally {
        this.probing = false;
      }
      if (this.waiting > 0 && !this.timer) this.timer = setTimeout(tick, this.probeMs);
    };
    this.timer = setTimeout(tick, this.probeMs);
  }

  private stopProbing(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

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
          await (options.wakeups?.wait(idleMs) ?? delay(idleMs));
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
      options.wakeups?.notify();
      await loop;
    },
  };
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

type Waiter = { wants: ((types: readonly string[]) => boolean) | undefined; wake: () => void };

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
  private waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | undefined;
  private last: string | undefined;

  constructor(
    private readonly probe?: (
      last: string | undefined,
    ) => Promise<{ head: string; types?: readonly string[] | undefined }>,
    private readonly probeMs = 200,
  ) {}

  /** Appends happened: types given, only readers of one of them wake; none, all wake. */
  notify(types?: readonly string[]): void {
    for (const w of this.waiters) {
      if (types === undefined || w.wants === undefined || w.wants(types)) {
        this.waiters.delete(w);
        w.wake();
      }
    }
    if (this.waiters.size === 0) this.stopProbing();
  }

  /** Waits at most `maxMs` for appends, of the types `wants` takes when given. */
  wait(maxMs: number, wants?: (types: readonly string[]) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        wants,
        wake: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        if (this.waiters.size === 0) this.stopProbing();
        resolve();
      }, maxMs);
      this.waiters.add(waiter);
      this.startProbing();
    });
  }

  private startProbing(): void {
    if (!this.probe || this.timer) return;
    const probe = this.probe;
    const tick = async () => {
      try {
        const { head, types } = await probe(this.last);
        if (this.last !== undefined && head !== this.last) this.notify(types);
        this.last = head;
      } catch {
        // the store is away: the readers' own time-outs keep them going
      }
      if (this.timer) this.timer = setTimeout(tick, this.probeMs);
    };
    this.timer = setTimeout(tick, this.probeMs);
  }

  private stopProbing(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

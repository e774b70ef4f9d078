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

/** Wakes waiting readers early, e.g. when this process appended an event. */
export class WakeSignal {
  private waiters = new Set<() => void>();
  notify(): void {
    for (const w of this.waiters) w();
    this.waiters.clear();
  }
  wait(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      this.waiters.add(done);
    });
  }
}

import { DomainError } from '../domain/shared/decider.ts';

/**
 * One label's costly requests of a kind run one at a time in this process, a few more
 * wait, and past that the label is told to come back (429 with Retry-After): twenty
 * batch requests of one label at once made twenty reads of every named order at once,
 * and the other labels' answers and `/readyz` waited behind them for minutes.
 */
export class LabelGate {
  private readonly queues = new Map<string, { running: boolean; waiting: (() => void)[] }>();

  constructor(
    /** what is gated, for the 429's text */
    private readonly what: string,
    /** how many of a label's requests may wait behind its running one */
    readonly maxWaiting: number,
    private readonly retryAfterSeconds = 2,
  ) {}

  async run<T>(labelId: string, work: () => Promise<T>): Promise<T> {
    let q = this.queues.get(labelId);
    if (!q) {
      q = { running: false, waiting: [] };
      this.queues.set(labelId, q);
    }
    if (q.running) {
      if (q.waiting.length >= this.maxWaiting)
        throw new DomainError(
          'rate_limited',
          `${q.waiting.length + 1} ${this.what} of this label are under way already; send this one when they are answered`,
          'too_many_requests',
          { retryAfterSeconds: this.retryAfterSeconds },
        );
      const queue = q;
      await new Promise<void>((resolve) => queue.waiting.push(resolve));
    }
    q.running = true;
    try {
      return await work();
    } finally {
      const next = q.waiting.shift();
      if (next) next();
      else {
        q.running = false;
        this.queues.delete(labelId);
      }
    }
  }
}

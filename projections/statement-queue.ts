import type pg from 'pg';

/**
 * Writes sent back to back on a transaction's connection, without waiting for each
 * answer: the driver sends the next the moment the last one ended, in the order sent,
 * instead of after this process's event loop comes back to the caller (beside a busy
 * worker that wait was longer than the statement). A statement sent later, awaited or
 * not, runs after them and sees what they wrote. `settle` waits for all of them and
 * throws the first failure: the cause (those after it fail in the aborted transaction).
 */
export class StatementQueue {
  private readonly sent: Promise<unknown>[] = [];
  private failure: { err: unknown } | undefined;

  constructor(private readonly tx: Pick<pg.PoolClient, 'query'>) {}

  send(text: string, values?: unknown[]): void {
    const result = this.tx.query(text, values);
    result.catch((err: unknown) => {
      this.failure ??= { err };
    });
    this.sent.push(result);
  }

  /** Waits for every statement sent; throws the first that failed, else `cause` if given. */
  async settle(cause?: { err: unknown }): Promise<void> {
    await Promise.allSettled(this.sent.splice(0));
    if (this.failure) throw this.failure.err;
    if (cause) throw cause.err;
  }

  /**
   * Runs `body` with this queue and settles it: when `body` throws (an awaited statement
   * in the aborted transaction, say), the first failure of what was sent is thrown.
   */
  static async around(
    tx: Pick<pg.PoolClient, 'query'>,
    body: (q: StatementQueue) => Promise<void>,
  ): Promise<void> {
    const q = new StatementQueue(tx);
    try {
      await body(q);
    } catch (err) {
      await q.settle({ err });
    }
    await q.settle();
  }
}

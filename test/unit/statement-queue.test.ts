import { describe, expect, it } from 'vitest';
import { StatementQueue } from '../../projections/statement-queue.ts';

/**
 * A connection as the driver behaves: statements run one at a time in the order sent;
 * after one fails, the transaction is aborted and every later one fails too.
 */
function connection(failing?: string) {
  const ran: string[] = [];
  let aborted = false;
  let tail: Promise<unknown> = Promise.resolve();
  const query = (text: string) => {
    const result = tail.then(async () => {
      await new Promise((r) => setTimeout(r, 1));
      if (aborted) throw new Error('current transaction is aborted');
      ran.push(text);
      if (text === failing) {
        aborted = true;
        throw new Error(`${text} failed`);
      }
      return { rows: [] };
    });
    tail = result.catch(() => {});
    return result;
  };
  // biome-ignore lint/suspicious/noExplicitAny: a stand-in for pg's overloaded query
  return { tx: { query } as any, ran };
}

describe('StatementQueue', () => {
  it('sends without waiting, in order, and settles once all have run', async () => {
    const { tx, ran } = connection();
    const q = new StatementQueue(tx);
    q.send('a');
    q.send('b');
    expect(ran).toEqual([]);
    // an awaited statement after them runs after them
    await tx.query('read');
    q.send('c');
    await q.settle();
    expect(ran).toEqual(['a', 'b', 'read', 'c']);
  });

  it('throws the first failure, the cause, not the aborted ones after it', async () => {
    const { tx } = connection('b');
    const q = new StatementQueue(tx);
    q.send('a');
    q.send('b');
    q.send('c');
    await expect(q.settle()).rejects.toThrow('b failed');
  });

  it('around: the cause wins over an awaited statement that failed in the aborted transaction', async () => {
    const { tx, ran } = connection('b');
    await expect(
      StatementQueue.around(tx, async (q) => {
        q.send('a');
        q.send('b');
        await tx.query('read'); // fails: aborted
      }),
    ).rejects.toThrow('b failed');
    expect(ran).toEqual(['a', 'b']);
  });

  it('around: a failure of the body itself is thrown when nothing sent failed', async () => {
    const { tx } = connection();
    await expect(
      StatementQueue.around(tx, async (q) => {
        q.send('a');
        throw new Error('bad event');
      }),
    ).rejects.toThrow('bad event');
  });
});

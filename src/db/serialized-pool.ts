import type pg from 'pg';

/** A FIFO lock: one holder at a time. */
class Lock {
  private tail: Promise<void> = Promise.resolve();
  acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => held);
    return ready;
  }
}

export const startsTx = (sql: string) => /^\s*(BEGIN|START\s+TRANSACTION)\b/i.test(sql);
/**
 * COMMIT, END, ABORT, ROLLBACK; not ROLLBACK TO SAVEPOINT, which stays in the
 * transaction (taking it for an end let other statements in while the backend was still
 * in the transaction, and PGlite's queue then waited for the transaction's owner, which
 * waited for the lock: the embedded database froze when a projection isolated a bad
 * event).
 */
export const endsTx = (sql: string) =>
  /^\s*(COMMIT|END|ABORT|ROLLBACK)\b/i.test(sql) &&
  !/^\s*ROLLBACK(\s+(WORK|TRANSACTION))?\s+TO\b/i.test(sql);
const textOf = (q: unknown) => (typeof q === 'string' ? q : ((q as { text?: string })?.text ?? ''));

/**
 * Named (prepared) statements live in the backend, which every connection shares here:
 * a second connection preparing the same name would collide, so names are dropped.
 */
const unnamed = (q: unknown) =>
  typeof q === 'object' && q !== null && 'name' in q ? { ...q, name: undefined } : q;

/**
 * PGlite behind its socket server is one backend shared by every connection: a second
 * connection's extended-protocol messages can land between another's Parse and Bind
 * ("unnamed prepared statement does not exist"), and its statements would run inside
 * another connection's open transaction. This pool lets one statement, or one whole
 * transaction, through at a time. Code must still never wait for another connection
 * while it holds a transaction (it would wait for itself). A statement takes its
 * connection before the lock, never the lock before the connection.
 */
export function serializedPool(pool: pg.Pool): pg.Pool {
  const lock = new Lock();
  const once = async <T>(fn: () => Promise<T>): Promise<T> => {
    const release = await lock.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  };

  const wrapClient = (client: pg.PoolClient): pg.PoolClient => {
    let releaseTx: (() => void) | undefined;
    const query = async (q: unknown, values?: unknown) => {
      const sql = textOf(q);
      // biome-ignore lint/suspicious/noExplicitAny: forwards pg's overloaded query as it was called
      const run = () => (client.query as any)(unnamed(q), values);
      if (releaseTx) {
        try {
          return await run();
        } finally {
          if (endsTx(sql)) {
            releaseTx();
            releaseTx = undefined;
          }
        }
      }
      if (startsTx(sql)) {
        releaseTx = await lock.acquire();
        try {
          return await run();
        } catch (err) {
          releaseTx();
          releaseTx = undefined;
          throw err;
        }
      }
      return once(run);
    };
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === 'query') return query;
        if (prop === 'release') {
          return (err?: Error | boolean) => {
            releaseTx?.();
            releaseTx = undefined;
            target.release(err);
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
  };

  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        // a connection first, then the lock: a holder of the lock that waited for a
        // connection while every connection's holder waited for the lock froze the
        // service (17 runner loops on 16 connections did it)
        return async (q: unknown, values?: unknown) => {
          const client = await target.connect();
          let broken = false;
          try {
            // pg's query is overloaded; it is forwarded as it was called
            // biome-ignore lint/suspicious/noExplicitAny: see above
            return await once(() => (client.query as any)(unnamed(q), values));
          } catch (err) {
            // a server's error leaves the connection usable; anything else may not
            broken = !(err as { severity?: string }).severity;
            throw err;
          } finally {
            client.release(broken);
          }
        };
      }
      if (prop === 'connect') return async () => wrapClient(await target.connect());
      return Reflect.get(target, prop, receiver);
    },
  });
}

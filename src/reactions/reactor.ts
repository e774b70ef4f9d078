import type pg from 'pg';
import type { Position, RecordedEvent } from '../eventstore/port.ts';
import { type Subscriber, SubscriptionRunner } from '../subscriptions/runner.ts';

/**
 * Work that must follow an event, started from the log: a reactor reads the events it
 * handles from its checkpoint and reacts to each (starts a workflow, sends a message).
 * Reactions must be idempotent: after a crash the last ones run again.
 */
export interface Reactor extends Subscriber {
  react(event: RecordedEvent): Promise<void>;
}

/**
 * Runs reactors: the events of a page are reacted to in order, then the checkpoint moves
 * past the page (past the last one reacted to, when one fails): after a crash at most a
 * page of reactions runs again, which their idempotence makes harmless. A reaction
 * that fails because a dependency is down is retried until it is back (the checkpoint
 * stays); one that keeps failing on its event is parked after `parkAfter` tries.
 */
export class ReactionRunner extends SubscriptionRunner<Reactor> {
  protected readonly kind = 'reactor' as const;
  /** where this process left each reactor: one runs in one process at a time */
  private readonly at = new Map<string, Position>();

  protected override forget(name: string): void {
    this.at.delete(name);
  }

  async step(r: Reactor, client: pg.PoolClient): Promise<number> {
    const from = this.at.get(r.name) ?? (await this.checkpoint(r.name, client));
    const page = await this.store.readAll({
      after: from,
      limit: this.batchSize,
      dataOf: [...r.handles],
    });
    if (page.length === 0) return 0;
    let done: Position | undefined;
    for (const event of page) {
      if (r.handles.has(event.type)) {
        try {
          await r.react(event);
        } catch (err) {
          let attempts: number;
          try {
            attempts = this.failed(r, event, err); // throws unless it is to be parked
          } catch (stop) {
            if (done) {
              await this.saveCheckpoint(client, r.name, done);
              this.at.set(r.name, done);
            }
            throw stop;
          }
          await this.park(client, r, event, err, attempts);
        }
      }
      done = event.position;
    }
    const last = page[page.length - 1]!.position;
    await this.saveCheckpoint(client, r.name, last);
    this.at.set(r.name, last);
    return page.length;
  }

  protected retryOne(r: Reactor, event: RecordedEvent): Promise<void> {
    return r.react(event);
  }
}

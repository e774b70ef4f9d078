import type pg from 'pg';
import type { Position, RecordedEvent } from '../eventstore/port.ts';
import { describeError } from '../subscriptions/parked.ts';
import { type Subscriber, SubscriptionRunner } from '../subscriptions/subscription-runner.ts';
import { followingEvent } from '../telemetry/tracing.ts';

/**
 * Work that must follow an event, started from the log: a reactor reads the events it
 * handles from its checkpoint and reacts to each (starts a workflow, sends a message).
 * Reactions must be idempotent: after a crash the last ones run again.
 */
export interface Reactor extends Subscriber {
  react(event: RecordedEvent): Promise<void>;
  /** this process takes the reactor on (at its start, or back from another process) */
  acquired?(): void;
}

/** how long a reactor's checkpoint may trail what this process has reacted to */
const SAVE_EVERY_MS = 1000;

/**
 * Runs reactors: the events of a page are reacted to in order, then the checkpoint moves
 * past the page (past the last one reacted to, when one fails). The checkpoints of all
 * reactors are saved together, at most SAVE_EVERY_MS after their pages (and when the
 * runner stops): after a crash the reactions of that time run again, which their
 * idempotence makes harmless. A reaction that fails because a dependency is down is
 * retried until it is back (the checkpoint stays); one that keeps failing on its event
 * is parked after `parkAfter` tries.
 */
export class ReactionRunner extends SubscriptionRunner<Reactor> {
  protected readonly kind = 'reactor' as const;
  /** where this process left each reactor: one runs in one process at a time */
  private readonly at = new Map<string, Position>();
  /** reactors whose place here is past their stored checkpoint */
  private readonly unsaved = new Set<string>();
  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();

  protected override forget(name: string): void {
    this.at.delete(name);
    this.unsaved.delete(name);
    this.byName.get(name)?.acquired?.();
  }

  protected override async position(name: string): Promise<Position> {
    return (this.owned.has(name) && this.at.get(name)) || (await this.checkpoint(name));
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
          // in the trace of the command that appended the event, when it was traced
          await followingEvent(
            event.metadata.traceparent,
            `react ${r.name}`,
            { 'event.type': event.type, 'stream.id': event.streamId },
            () => r.react(event),
          );
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
    this.at.set(r.name, page[page.length - 1]!.position);
    this.unsaved.add(r.name);
    this.saveTimer ??= setTimeout(() => {
      this.saving = this.saveUnsaved();
    }, SAVE_EVERY_MS);
    return page.length;
  }

  /** Saves every reactor's place in one statement; a checkpoint only ever moves forward. */
  private async saveUnsaved(): Promise<void> {
    this.saveTimer = undefined;
    const names = [...this.unsaved].filter((n) => this.at.has(n));
    this.unsaved.clear();
    if (names.length === 0) return;
    try {
      await this.saveCheckpoints(
        this.pool,
        names.map((name) => ({ name, at: this.at.get(name)! })),
        true,
      );
    } catch (err) {
      // tried again with the next page, or at stop
      for (const n of names) this.unsaved.add(n);
      this.log.warn({ error: describeError(err) }, 'reactor checkpoints not saved; will retry');
    }
  }

  protected override async beforeRelease(): Promise<void> {
    clearTimeout(this.saveTimer);
    await this.saving;
    await this.saveUnsaved();
  }

  protected retryOne(r: Reactor, event: RecordedEvent): Promise<void> {
    return r.react(event);
  }
}

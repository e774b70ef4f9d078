import { randomUUID } from 'node:crypto';
import type { Aggregate } from '../domain/shared/decider.ts';
import {
  type AppendResult,
  type EventMetadata,
  type EventStore,
  WrongExpectedRevisionError,
} from '../eventstore/port.ts';
import type { FoldedStates } from './folded-states.ts';

interface Pending<C, E, S> {
  command: C;
  metadata: EventMetadata;
  resolve: (r: { events: E[]; state: S; appended: AppendResult | undefined }) => void;
  reject: (err: unknown) => void;
}

/**
 * Commands on one stream from this process, decided together: while an append to a
 * stream is under way, the commands that arrive for it wait; then they are decided one
 * after another on the state each leaves, and their events appended at once, at the
 * revision that state was read at. A scanner's burst on one order costs one append, not
 * one each, and the commands never race each other. Each command gets its own events
 * (none, or its error, as deciding alone would have given); another process's append
 * in between makes the batch be decided again on the stream as it now is.
 */
export class CommandBatches<C, E extends { type: string; data: unknown }, S> {
  private readonly queues = new Map<string, Pending<C, E, S>[]>();

  constructor(
    private readonly store: EventStore,
    private readonly aggregate: Aggregate<C, E, S, never>,
    private readonly folded: FoldedStates<S>,
    private readonly retries = 5,
  ) {}

  run(
    streamId: string,
    command: C,
    metadata: EventMetadata,
  ): Promise<{ events: E[]; state: S; appended: AppendResult | undefined }> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(streamId);
      const pending = { command, metadata, resolve, reject };
      if (queue) queue.push(pending);
      else {
        this.queues.set(streamId, [pending]);
        void this.drain(streamId);
      }
    });
  }

  /** Decides and appends what waits for the stream, batch after batch, until none waits. */
  private async drain(streamId: string): Promise<void> {
    for (;;) {
      const batch = this.queues.get(streamId) ?? [];
      if (batch.length === 0) {
        this.queues.delete(streamId);
        return;
      }
      // those that arrive while this batch runs make the next one
      this.queues.set(streamId, []);
      try {
        await this.decideAndAppend(streamId, batch);
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
  }

  private async decideAndAppend(streamId: string, batch: Pending<C, E, S>[]): Promise<void> {
    const { decider, events: registry } = this.aggregate;
    // a kept state is tried first, unread: only the append it leads to proves it current;
    // a batch in which any command refuses or finds nothing to do is decided on a read
    let unread = this.folded.peek(streamId);
    let conflicts = 0;
    for (;;) {
      const trusted = unread === undefined;
      const { revision, state: start } =
        unread ?? (await this.folded.read(this.store, this.aggregate, streamId));
      unread = undefined;
      let state = start;
      const outcomes: ({ events: E[] } | { error: unknown })[] = [];
      for (const p of batch) {
        try {
          const events = decider.decide(p.command, state);
          state = events.reduce(decider.evolve, state);
          outcomes.push({ events });
        } catch (error) {
          outcomes.push({ error });
        }
      }
      const doubtful = outcomes.some((o) => 'error' in o || o.events.length === 0);
      if (!trusted && doubtful) continue;
      const all = batch.flatMap((p, i) => {
        const o = outcomes[i]!;
        return 'events' in o
          ? o.events.map((e) => ({
              id: randomUUID(),
              ...registry.serialize(e),
              metadata: p.metadata,
            }))
          : [];
      });
      let appended: AppendResult | undefined;
      if (all.length > 0) {
        try {
          appended = await this.store.append(
            streamId,
            all,
            revision === undefined ? 'no_stream' : revision,
          );
        } catch (err) {
          if (err instanceof WrongExpectedRevisionError && (!trusted || conflicts++ < this.retries))
            continue;
          throw err;
        }
        this.folded.keep(streamId, appended.nextRevision, state);
      }
      batch.forEach((p, i) => {
        const o = outcomes[i]!;
        if ('error' in o) p.reject(o.error);
        else
          p.resolve({ events: o.events, state, appended: o.events.length ? appended : undefined });
      });
      return;
    }
  }
}

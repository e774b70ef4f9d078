import { LRUCache } from 'lru-cache';
import { type Aggregate, fold } from '../domain/shared/decider.ts';
import type { AppendResult, EventStore } from '../eventstore/port.ts';

/**
 * Aggregates' folded states, each with the revision it has reached. A read takes only
 * the events appended since (stored events never change, so a kept state is never
 * wrong, only behind): a command on a long stream, an order of fifty items scanned one
 * by one, reads and decodes a few events instead of the whole stream. A command may even
 * decide on the kept state without reading: its append at that revision fails when the
 * stream has moved on, and then it is decided again on what was read.
 */
export class FoldedStates<S> {
  private readonly states: LRUCache<string, { revision: bigint; state: S }>;

  constructor(max = 10_000) {
    this.states = new LRUCache({ max });
  }

  /** The stream's current state and its last revision (undefined: no stream yet). */
  async read<C, E extends { type: string; data: unknown }>(
    store: EventStore,
    aggregate: Aggregate<C, E, S, never>,
    streamId: string,
  ): Promise<{ revision: bigint | undefined; state: S }> {
    const kept = this.states.get(streamId);
    const from = kept ? kept.revision + 1n : 0n;
    const tail = await store.readStream(streamId, from);
    const last = tail.at(-1);
    if (!last) return kept ?? { revision: undefined, state: aggregate.decider.initialState };
    const state = tail.reduce(
      (s, e) => aggregate.decider.evolve(s, aggregate.events.deserialize(e)),
      kept?.state ?? fold(aggregate.decider, []),
    );
    this.keep(streamId, last.revision, state);
    return { revision: last.revision, state };
  }

  /** The state as last kept, without reading: maybe behind (an append at its revision says). */
  peek(streamId: string): { revision: bigint; state: S } | undefined {
    return this.states.get(streamId);
  }

  keep(streamId: string, revision: bigint, state: S): void {
    const kept = this.states.get(streamId);
    if (!kept || kept.revision < revision) this.states.set(streamId, { revision, state });
  }

  /**
   * The state a command's append left the stream at; nothing for a command that appended
   * nothing, or only events that were there already (which tell no revision the state is at).
   */
  keepAppended(streamId: string, r: { appended: AppendResult | undefined; state: S }): void {
    if (r.appended && !r.appended.duplicate) this.keep(streamId, r.appended.nextRevision, r.state);
  }

  forget(streamId: string): void {
    this.states.delete(streamId);
  }
}

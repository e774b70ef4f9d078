import type { EventRegistry } from './events.ts';

/** An aggregate's behaviour as two pure functions (the decider pattern). */
export interface Decider<Command, Event, State> {
  initialState: State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

export type DomainErrorKind =
  | 'not_found'
  | 'conflict'
  | 'invalid'
  | 'forbidden'
  | 'rate_limited'
  /** a dependency outside the service is missing (e.g. a label's partner login) */
  | 'unavailable';

/** A rule of the domain said no. The HTTP layer maps the kind to a status code. */
export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly code: string,
    readonly details: {
      /** for rate_limited: when another attempt may be made, in seconds */
      retryAfterSeconds?: number;
      /** for invalid: the field of the input at fault, as a path (`3.supplier`) */
      field?: string;
    } = {},
  ) {
    super(message);
  }
}

export const fold = <C, E, S>(decider: Decider<C, E, S>, events: E[]): S =>
  events.reduce(decider.evolve, decider.initialState);

/**
 * An aggregate bound once: its event types, its decider, and how its stream is named.
 * Commands and reads take the aggregate, so no caller pairs a registry with a decider.
 */
export interface Aggregate<C, E extends { type: string; data: unknown }, S, K extends unknown[]> {
  events: EventRegistry<E>;
  decider: Decider<C, E, S>;
  stream: (...key: K) => string;
}

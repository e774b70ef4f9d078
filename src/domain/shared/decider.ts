/** An aggregate's behaviour as two pure functions (the decider pattern). */
export interface Decider<Command, Event, State> {
  initialState: State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

export type DomainErrorKind = 'not_found' | 'conflict' | 'invalid' | 'forbidden' | 'rate_limited';

/** A rule of the domain said no. The HTTP layer maps the kind to a status code. */
export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly code: string,
    /** for rate_limited: when another attempt may be made */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const fold = <C, E, S>(decider: Decider<C, E, S>, events: E[]): S =>
  events.reduce(decider.evolve, decider.initialState);

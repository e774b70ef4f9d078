import { expect } from 'vitest';
import { type Decider, DomainError, fold } from '../../src/domain/shared/decider.ts';

/**
 * given(events).when(command).thenEvents(events) | .thenFails(code): Emmett-style decider tests.
 */
export function specFor<C, E, S>(decider: Decider<C, E, S>) {
  return (given: E[]) => ({
    when: (command: C) => {
      const run = () => decider.decide(command, fold(decider, given));
      return {
        thenEvents(expected: E[]) {
          expect(run()).toEqual(expected);
        },
        thenFails(code: string) {
          let error: unknown;
          try {
            run();
          } catch (err) {
            error = err;
          }
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe(code);
        },
      };
    },
  });
}

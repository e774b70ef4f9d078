import { describe, expect, it } from 'vitest';
import { FoldedStates } from '../../src/app/folded-states.ts';

const position = { commit: 1n, prepare: 1n };

describe('folded states kept after an append', () => {
  it('keeps the state an append left the stream at, and nothing for an append of nothing new', () => {
    const states = new FoldedStates<string>();
    states.keepAppended('S-1', { appended: undefined, state: 'decided, nothing appended' });
    expect(states.peek('S-1')).toBeUndefined();
    states.keepAppended('S-1', {
      appended: { nextRevision: 3n, position, duplicate: true },
      state: 'events there already',
    });
    expect(states.peek('S-1')).toBeUndefined();
    states.keepAppended('S-1', { appended: { nextRevision: 3n, position }, state: 'appended' });
    expect(states.peek('S-1')).toEqual({ revision: 3n, state: 'appended' });
    // never back: an older revision kept later does not replace it
    states.keepAppended('S-1', { appended: { nextRevision: 2n, position }, state: 'older' });
    expect(states.peek('S-1')).toEqual({ revision: 3n, state: 'appended' });
  });
});

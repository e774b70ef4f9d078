import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import type { StoredKey } from '../shared/keys.ts';
import { type PrintshopKeyEvent, printshopKeyEvents, printshopKeyStream } from './events.ts';

export type PrintshopKeyCommand = {
  type: 'IssuePrintshopKey';
  keyId: string;
  name: string;
  key: StoredKey;
  at: Date;
};
export type PrintshopKeyState = { exists: false } | { exists: true; keyId: string; key: StoredKey };

export const printshopKeyDecider: Decider<
  PrintshopKeyCommand,
  PrintshopKeyEvent,
  PrintshopKeyState
> = {
  initialState: { exists: false },
  decide(command, state) {
    if (state.exists) throw new DomainError('conflict', 'key exists', 'printshop_key_exists');
    const { keyId, name, key, at } = command;
    return [{ type: 'PrintshopKeyIssued', data: { keyId, name, key, issuedAt: at.toISOString() } }];
  },
  evolve(_state, event) {
    return { exists: true, keyId: event.data.keyId, key: event.data.key };
  },
};

export const printshopKeyAggregate: Aggregate<
  PrintshopKeyCommand,
  PrintshopKeyEvent,
  PrintshopKeyState,
  Parameters<typeof printshopKeyStream>
> = {
  events: printshopKeyEvents,
  decider: printshopKeyDecider,
  stream: printshopKeyStream,
};

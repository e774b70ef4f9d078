import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import type { StoredKey } from '../shared/keys.ts';
import type { LabelEvent, PartnerIdEvent } from './events.ts';

export type LabelCommand = {
  type: 'CreateLabel';
  labelId: string;
  name: string;
  partnerId: number;
  adminKey: StoredKey;
  fulfillmentKey: StoredKey;
  at: Date;
};

export type LabelState =
  | { exists: false }
  | {
      exists: true;
      labelId: string;
      name: string;
      partnerId: number;
      adminKey: StoredKey;
      fulfillmentKey: StoredKey;
    };

export const labelDecider: Decider<LabelCommand, LabelEvent, LabelState> = {
  initialState: { exists: false },
  decide(command, state) {
    switch (command.type) {
      case 'CreateLabel': {
        if (state.exists) throw new DomainError('conflict', 'label exists', 'label_exists');
        const { labelId, name, partnerId, adminKey, fulfillmentKey, at } = command;
        return [
          {
            type: 'LabelCreated',
            data: {
              labelId,
              name,
              partnerId,
              adminKey,
              fulfillmentKey,
              createdAt: at.toISOString(),
            },
          },
        ];
      }
    }
  },
  evolve(_state, event) {
    switch (event.type) {
      case 'LabelCreated': {
        const { labelId, name, partnerId, adminKey, fulfillmentKey } = event.data;
        return { exists: true, labelId, name, partnerId, adminKey, fulfillmentKey };
      }
    }
  },
};

export type PartnerIdCommand = { type: 'ReservePartnerId'; partnerId: number; labelId: string };
export type PartnerIdState = { reservedBy: string | undefined };

export const partnerIdDecider: Decider<PartnerIdCommand, PartnerIdEvent, PartnerIdState> = {
  initialState: { reservedBy: undefined },
  decide(command, state) {
    if (state.reservedBy !== undefined) {
      throw new DomainError(
        'conflict',
        `partner id ${command.partnerId} is taken`,
        'partner_id_taken',
      );
    }
    return [
      {
        type: 'PartnerIdReserved',
        data: { partnerId: command.partnerId, labelId: command.labelId },
      },
    ];
  },
  evolve(_state, event) {
    return { reservedBy: event.data.labelId };
  },
};

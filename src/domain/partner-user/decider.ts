import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import type { Encrypted } from '../shared/encrypted.ts';
import {
  type PartnerUserEvent,
  partnerUserEvents,
  partnerUserStream,
  type UserIdClaimEvent,
  userIdClaimEvents,
  userIdClaimStream,
} from './events.ts';

export type PartnerUserCommand =
  | {
      type: 'RegisterPartnerUser';
      userRef: string;
      labelId: string;
      userId: string;
      profile: Encrypted | null;
      at: Date;
    }
  | { type: 'ChangeProfile'; profile: Encrypted; at: Date }
  | { type: 'RekeyPartnerUser'; newUserId: string; at: Date }
  | { type: 'DeletePartnerUser'; at: Date };

export type PartnerUserState =
  | { status: 'none' }
  | { status: 'active' | 'deleted'; userRef: string; labelId: string; userId: string };

const notFound = () => new DomainError('not_found', 'user not found', 'user_not_found');

export const partnerUserDecider: Decider<PartnerUserCommand, PartnerUserEvent, PartnerUserState> = {
  initialState: { status: 'none' },
  decide(command, state) {
    if (command.type === 'RegisterPartnerUser') {
      if (state.status !== 'none') throw new DomainError('conflict', 'user exists', 'user_exists');
      const { userRef, labelId, userId, profile, at } = command;
      return [
        {
          type: 'PartnerUserRegistered',
          data: { userRef, labelId, userId, profile, registeredAt: at.toISOString() },
        },
      ];
    }
    if (state.status !== 'active') throw notFound();
    switch (command.type) {
      case 'ChangeProfile':
        return [
          {
            type: 'PartnerUserProfileChanged',
            data: {
              userRef: state.userRef,
              profile: command.profile,
              changedAt: command.at.toISOString(),
            },
          },
        ];
      case 'RekeyPartnerUser':
        if (command.newUserId === state.userId) return [];
        return [
          {
            type: 'PartnerUserRekeyed',
            data: {
              userRef: state.userRef,
              userId: state.userId,
              newUserId: command.newUserId,
              rekeyedAt: command.at.toISOString(),
            },
          },
        ];
      case 'DeletePartnerUser':
        return [
          {
            type: 'PartnerUserDeleted',
            data: {
              userRef: state.userRef,
              labelId: state.labelId,
              deletedAt: command.at.toISOString(),
            },
          },
        ];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'PartnerUserRegistered':
        return {
          status: 'active',
          userRef: event.data.userRef,
          labelId: event.data.labelId,
          userId: event.data.userId,
        };
      case 'PartnerUserProfileChanged':
        return state;
      case 'PartnerUserRekeyed':
        return state.status === 'none' ? state : { ...state, userId: event.data.newUserId };
      case 'PartnerUserDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
    }
  },
};

export type UserIdClaimCommand =
  | { type: 'ClaimUserId'; labelId: string; userRef: string }
  | { type: 'ReleaseUserId'; userRef: string };
export type UserIdClaimState = { labelId: string | undefined; claimedBy: string | undefined };

export const userIdClaimDecider: Decider<UserIdClaimCommand, UserIdClaimEvent, UserIdClaimState> = {
  initialState: { labelId: undefined, claimedBy: undefined },
  decide(command, state) {
    switch (command.type) {
      case 'ClaimUserId':
        if (state.claimedBy === command.userRef) return [];
        if (state.claimedBy !== undefined) {
          throw new DomainError(
            'conflict',
            'this user id belongs to another user',
            'user_id_taken',
          );
        }
        return [
          {
            type: 'PartnerUserIdClaimed',
            data: { labelId: command.labelId, userRef: command.userRef },
          },
        ];
      case 'ReleaseUserId':
        if (state.claimedBy !== command.userRef) return [];
        return [
          {
            type: 'PartnerUserIdReleased',
            data: { labelId: state.labelId!, userRef: command.userRef },
          },
        ];
    }
  },
  evolve(_state, event) {
    return event.type === 'PartnerUserIdClaimed'
      ? { labelId: event.data.labelId, claimedBy: event.data.userRef }
      : { labelId: event.data.labelId, claimedBy: undefined };
  },
};

export const partnerUserAggregate: Aggregate<
  PartnerUserCommand,
  PartnerUserEvent,
  PartnerUserState,
  Parameters<typeof partnerUserStream>
> = {
  events: partnerUserEvents,
  decider: partnerUserDecider,
  stream: partnerUserStream,
};

export const userIdClaimAggregate: Aggregate<
  UserIdClaimCommand,
  UserIdClaimEvent,
  UserIdClaimState,
  Parameters<typeof userIdClaimStream>
> = {
  events: userIdClaimEvents,
  decider: userIdClaimDecider,
  stream: userIdClaimStream,
};

import { describe, it } from 'vitest';
import {
  partnerUserDecider,
  userIdClaimDecider,
} from '../../../src/domain/partner-user/decider.ts';
import type {
  PartnerUserEvent,
  UserIdClaimEvent,
} from '../../../src/domain/partner-user/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const userRef = '11111111-1111-4111-8111-111111111111';
const labelId = '22222222-2222-4222-8222-222222222222';
const someoneElse = '33333333-3333-4333-8333-333333333333';
const at = new Date('2026-01-02T03:04:05.000Z');
const sealed = { alg: 'A256GCM' as const, iv: 'aXY', data: 'ZGF0YQ', tag: 'dGFn' };
const user = specFor(partnerUserDecider);
const registered: PartnerUserEvent = {
  type: 'PartnerUserRegistered',
  data: { userRef, labelId, userId: 'u-1', profile: sealed, registeredAt: at.toISOString() },
};

describe('partner user decider', () => {
  it('registers a user, its profile only ever encrypted', () =>
    user([])
      .when({ type: 'RegisterPartnerUser', userRef, labelId, userId: 'u-1', profile: sealed, at })
      .thenEvents([registered]));
  it('re-keys a user to a new partner id, and does nothing for the same id', () => {
    user([registered])
      .when({ type: 'RekeyPartnerUser', newUserId: 'crm-7', at })
      .thenEvents([
        {
          type: 'PartnerUserRekeyed',
          data: { userRef, userId: 'u-1', newUserId: 'crm-7', rekeyedAt: at.toISOString() },
        },
      ]);
    user([registered]).when({ type: 'RekeyPartnerUser', newUserId: 'u-1', at }).thenEvents([]);
  });
  it('deletes a user, after which nothing more can be done with it', () => {
    const deleted: PartnerUserEvent = {
      type: 'PartnerUserDeleted',
      data: { userRef, labelId, deletedAt: at.toISOString() },
    };
    user([registered]).when({ type: 'DeletePartnerUser', at }).thenEvents([deleted]);
    user([registered, deleted]).when({ type: 'DeletePartnerUser', at }).thenFails('user_not_found');
    user([registered, deleted])
      .when({ type: 'ChangeProfile', profile: sealed, at })
      .thenFails('user_not_found');
  });
});

describe('user id claim decider', () => {
  const claim = specFor(userIdClaimDecider);
  const claimed: UserIdClaimEvent = { type: 'PartnerUserIdClaimed', data: { labelId, userRef } };
  it('claims a free partner user id for a user, idempotently', () => {
    claim([]).when({ type: 'ClaimUserId', labelId, userRef }).thenEvents([claimed]);
    claim([claimed]).when({ type: 'ClaimUserId', labelId, userRef }).thenEvents([]);
  });
  it('refuses an id another user holds, until it is released', () => {
    claim([claimed])
      .when({ type: 'ClaimUserId', labelId, userRef: someoneElse })
      .thenFails('user_id_taken');
    const released: UserIdClaimEvent = {
      type: 'PartnerUserIdReleased',
      data: { labelId, userRef },
    };
    claim([claimed]).when({ type: 'ReleaseUserId', userRef }).thenEvents([released]);
    claim([claimed, released])
      .when({ type: 'ClaimUserId', labelId, userRef: someoneElse })
      .thenEvents([{ type: 'PartnerUserIdClaimed', data: { labelId, userRef: someoneElse } }]);
  });
  it('lets only the holder release an id', () =>
    claim([claimed]).when({ type: 'ReleaseUserId', userRef: someoneElse }).thenEvents([]));
});

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { destroyOwnerKey, encrypt, ensureOwnerKey } from '../db/encryption-keys.ts';
import {
  type PartnerUserCommand,
  partnerUserDecider,
  type UserIdClaimCommand,
  userIdClaimDecider,
} from '../domain/partner-user/decider.ts';
import {
  type Profile,
  partnerUserEvents,
  partnerUserStream,
  userIdClaimEvents,
  userIdClaimStream,
} from '../domain/partner-user/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata, EventStore, Position } from '../eventstore/port.ts';
import { handleCommand, loadState } from './command-handler.ts';

const notFound = () => new DomainError('not_found', 'user not found', 'user_not_found');

const onUser = (
  store: EventStore,
  userRef: string,
  command: PartnerUserCommand,
  meta: EventMetadata,
) =>
  handleCommand(
    store,
    partnerUserEvents,
    partnerUserDecider,
    partnerUserStream(userRef),
    command,
    meta,
  );

const onClaim = (
  store: EventStore,
  labelId: string,
  userId: string,
  command: UserIdClaimCommand,
  meta: EventMetadata,
) =>
  handleCommand(
    store,
    userIdClaimEvents,
    userIdClaimDecider,
    userIdClaimStream(labelId, userId),
    command,
    meta,
  );

/** Frees a partner's user id once its user has moved off it (re-key) or is gone (delete). */
const releaseUserId = (
  store: EventStore,
  labelId: string,
  userId: string,
  userRef: string,
  meta: EventMetadata,
) => onClaim(store, labelId, userId, { type: 'ReleaseUserId', userRef }, meta);

/** The user a partner's user id names in a label, read from the event store (consistent). */
export async function resolveUser(
  store: EventStore,
  labelId: string,
  userId: string,
): Promise<string | undefined> {
  const claim = await loadState(
    store,
    userIdClaimEvents,
    userIdClaimDecider,
    userIdClaimStream(labelId, userId),
  );
  if (!claim.claimedBy) return undefined;
  const user = await loadState(
    store,
    partnerUserEvents,
    partnerUserDecider,
    partnerUserStream(claim.claimedBy),
  );
  return user.status === 'active' && user.userId === userId && user.labelId === labelId
    ? user.userRef
    : undefined;
}

export async function isActiveUser(
  store: EventStore,
  labelId: string,
  userRef: string,
): Promise<boolean> {
  const user = await loadState(
    store,
    partnerUserEvents,
    partnerUserDecider,
    partnerUserStream(userRef),
  );
  return user.status === 'active' && user.labelId === labelId;
}

/**
 * The user for a partner's user id, registered on first sight. The profile (names, user
 * name) is stored encrypted with the user's own key; a changed profile is recorded.
 */
export async function registerPartnerUser(
  store: EventStore,
  pool: pg.Pool,
  labelId: string,
  userId: string,
  profile: Profile | undefined,
  metadata: EventMetadata,
): Promise<{ userRef: string; position: Position | undefined }> {
  const existing = await resolveUser(store, labelId, userId);
  const meta = { ...metadata, labelId };
  if (existing) {
    if (!profile) return { userRef: existing, position: undefined };
    const key = await ensureOwnerKey(pool, existing);
    const r = await onUser(
      store,
      existing,
      {
        type: 'ChangeProfile',
        profile: encrypt(key, profile),
        at: new Date(),
      },
      meta,
    );
    return { userRef: existing, position: r.appended?.position };
  }
  const userRef = randomUUID();
  const key = await ensureOwnerKey(pool, userRef);
  await onClaim(
    store,
    labelId,
    userId,
    {
      type: 'ClaimUserId',
      labelId,
      userRef,
    },
    meta,
  );
  const r = await onUser(
    store,
    userRef,
    {
      type: 'RegisterPartnerUser',
      userRef,
      labelId,
      userId,
      profile: profile ? encrypt(key, profile) : null,
      at: new Date(),
    },
    meta,
  );
  return { userRef, position: r.appended?.position };
}

/**
 * Gives a user a new partner id: the new id is claimed first (409 when another user has
 * it), then the user is re-keyed and the old id released. Projects and cart items refer
 * to the user, not to the id, so they follow.
 */
export async function rekeyPartnerUser(
  store: EventStore,
  labelId: string,
  userId: string,
  newUserId: string,
  metadata: EventMetadata,
): Promise<{ userRef: string; position: Position | undefined }> {
  const userRef = await resolveUser(store, labelId, userId);
  if (!userRef) throw notFound();
  const meta = { ...metadata, labelId };
  if (newUserId === userId) return { userRef, position: undefined };
  await onClaim(
    store,
    labelId,
    newUserId,
    {
      type: 'ClaimUserId',
      labelId,
      userRef,
    },
    meta,
  );
  const r = await onUser(
    store,
    userRef,
    {
      type: 'RekeyPartnerUser',
      newUserId,
      at: new Date(),
    },
    meta,
  );
  await releaseUserId(store, labelId, userId, userRef, meta);
  return { userRef, position: r.appended?.position };
}

/**
 * Deletes a user: their key is destroyed first, so their personal data cannot be read
 * from any event again, then the deletion is recorded (read models drop the user, their
 * projects and cart items) and the partner id released.
 */
export async function deletePartnerUser(
  store: EventStore,
  pool: pg.Pool,
  labelId: string,
  userId: string,
  metadata: EventMetadata,
): Promise<Position | undefined> {
  const userRef = await resolveUser(store, labelId, userId);
  if (!userRef) throw notFound();
  const meta = { ...metadata, labelId };
  await destroyOwnerKey(pool, userRef);
  const r = await onUser(
    store,
    userRef,
    {
      type: 'DeletePartnerUser',
      at: new Date(),
    },
    meta,
  );
  await releaseUserId(store, labelId, userId, userRef, meta);
  return r.appended?.position;
}

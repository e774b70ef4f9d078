import { randomUUID } from 'node:crypto';
import { editorUserCount, findUserRef } from '#projections/partner-users';
import { countUserProjects, listUserProjects } from '#projections/projects';
import { destroyOwnerKey, encrypt, ensureOwnerKey } from '../db/encryption-keys.ts';
import { partnerUserAggregate, userIdClaimAggregate } from '../domain/partner-user/decider.ts';
import {
  type Profile,
  partnerUserStream,
  userIdClaimStream,
} from '../domain/partner-user/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata, EventStore, Position } from '../eventstore/port.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { addingTo } from './label-collections.ts';

const notFound = () => new DomainError('not_found', 'user not found', 'user_not_found');

/** Claims a partner's user id for a user (409 when another user holds it). */
const claimUserId = (
  store: EventStore,
  labelId: string,
  userId: string,
  userRef: string,
  meta: EventMetadata,
) =>
  handleCommand(
    store,
    userIdClaimAggregate,
    userIdClaimStream(labelId, userId),
    { type: 'ClaimUserId', labelId, userRef },
    meta,
  );

/** Frees a partner's user id once its user has moved off it (re-key) or is gone (delete). */
const releaseUserId = (
  store: EventStore,
  labelId: string,
  userId: string,
  userRef: string,
  meta: EventMetadata,
) =>
  handleCommand(
    store,
    userIdClaimAggregate,
    userIdClaimStream(labelId, userId),
    { type: 'ReleaseUserId', userRef },
    meta,
  );

/** The user a partner's user id names in a label, read from the event store (consistent). */
export async function resolveUser(
  store: EventStore,
  labelId: string,
  userId: string,
): Promise<string | undefined> {
  const claim = await loadState(store, userIdClaimAggregate, userIdClaimStream(labelId, userId));
  if (!claim.claimedBy) return undefined;
  const user = await loadState(store, partnerUserAggregate, partnerUserStream(claim.claimedBy));
  return user.status === 'active' && user.userId === userId && user.labelId === labelId
    ? user.userRef
    : undefined;
}

export async function isActiveUser(
  store: EventStore,
  labelId: string,
  userRef: string,
): Promise<boolean> {
  const user = await loadState(store, partnerUserAggregate, partnerUserStream(userRef));
  return user.status === 'active' && user.labelId === labelId;
}

/**
 * The user for a partner's user id, registered on first sight. The profile (names, user
 * name) is stored encrypted with the user's own key; a changed profile is recorded.
 */
export async function registerPartnerUser(
  ctx: Pick<AppContext, 'store' | 'pool' | 'readModels' | 'maximums'>,
  labelId: string,
  userId: string,
  profile: Profile | undefined,
  metadata: EventMetadata,
): Promise<{ userRef: string }> {
  const existing = await resolveUser(ctx.store, labelId, userId);
  const registered = async () => {
    // a new one is looked up again once its turn comes: the one before may have been it
    const { userRef, position } = await register(ctx, labelId, userId, profile, metadata, existing);
    // the next one counts this one
    await ctx.readModels.seen('partner-users', position);
    return { userRef };
  };
  return existing
    ? registered()
    : addingTo(
        ctx.maximums,
        labelId,
        'editorUsers',
        () => editorUserCount(ctx.pool, labelId),
        registered,
      );
}

async function register(
  { store, pool }: Pick<AppContext, 'store' | 'pool'>,
  labelId: string,
  userId: string,
  profile: Profile | undefined,
  metadata: EventMetadata,
  /** the user's ref, when the caller has looked it up already */
  known?: string,
): Promise<{ userRef: string; position: Position | undefined }> {
  const existing = known ?? (await resolveUser(store, labelId, userId));
  const meta = { ...metadata, labelId };
  if (existing) {
    if (!profile) return { userRef: existing, position: undefined };
    const key = await ensureOwnerKey(pool, existing);
    const r = await handleCommand(
      store,
      partnerUserAggregate,
      partnerUserStream(existing),
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
  await claimUserId(store, labelId, userId, userRef, meta);
  const r = await handleCommand(
    store,
    partnerUserAggregate,
    partnerUserStream(userRef),
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
  ctx: AppContext,
  labelId: string,
  userId: string,
  newUserId: string,
  metadata: EventMetadata,
): Promise<{ userId: string; projects: number }> {
  const { userRef, position } = await rekey(ctx.store, labelId, userId, newUserId, metadata);
  await ctx.readModels.seen('partner-users', position);
  return { userId: newUserId, projects: await countUserProjects(ctx.pool, userRef) };
}

async function rekey(
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
  await claimUserId(store, labelId, newUserId, userRef, meta);
  const r = await handleCommand(
    store,
    partnerUserAggregate,
    partnerUserStream(userRef),
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
  { store, pool, readModels }: AppContext,
  labelId: string,
  userId: string,
  metadata: EventMetadata,
): Promise<{ userId: string; deleted: true }> {
  const userRef = await resolveUser(store, labelId, userId);
  if (!userRef) throw notFound();
  const meta = { ...metadata, labelId };
  await destroyOwnerKey(pool, userRef);
  const r = await handleCommand(
    store,
    partnerUserAggregate,
    partnerUserStream(userRef),
    {
      type: 'DeletePartnerUser',
      at: new Date(),
    },
    meta,
  );
  await releaseUserId(store, labelId, userId, userRef, meta);
  await readModels.seen('projects', r.appended?.position);
  await readModels.seen('partner-users', r.appended?.position);
  return { userId, deleted: true };
}

/** A user's projects, a page of them; an unknown user (or another label's) is not found. */
export async function userProjects(
  ctx: AppContext,
  labelId: string,
  userId: string,
  page: { limit: number; offset: number },
) {
  const userRef = await findUserRef(ctx.pool, labelId, userId);
  if (!userRef) throw notFound();
  return listUserProjects(ctx.pool, userRef, page.limit, page.offset);
}

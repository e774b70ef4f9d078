import { createHash } from 'node:crypto';
import { z } from 'zod';
import { encryptedSchema } from '../shared/encrypted.ts';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

export const partnerUserIdSchema = z.string().trim().min(1).max(200);

/** The personal part of a partner user, only ever stored encrypted (see db/encryption-keys.ts). */
export const profileSchema = z.object({
  firstName: z.string().max(200).optional(),
  lastName: z.string().max(200).optional(),
  userName: z.string().max(320).optional(),
});
export type Profile = z.infer<typeof profileSchema>;

export const PartnerUserRegistered = defineEvent(
  'PartnerUserRegistered',
  1,
  z.object({
    userRef: z.uuid(),
    labelId: z.uuid(),
    userId: z.string(),
    profile: encryptedSchema.nullable(),
    registeredAt: z.iso.datetime(),
  }),
);
export const PartnerUserProfileChanged = defineEvent(
  'PartnerUserProfileChanged',
  1,
  z.object({ userRef: z.uuid(), profile: encryptedSchema, changedAt: z.iso.datetime() }),
);
export const PartnerUserRekeyed = defineEvent(
  'PartnerUserRekeyed',
  1,
  z.object({
    userRef: z.uuid(),
    userId: z.string(),
    newUserId: z.string(),
    rekeyedAt: z.iso.datetime(),
  }),
);
export const PartnerUserDeleted = defineEvent(
  'PartnerUserDeleted',
  1,
  z.object({ userRef: z.uuid(), labelId: z.uuid(), deletedAt: z.iso.datetime() }),
);

export type PartnerUserEvent =
  | EventOf<typeof PartnerUserRegistered>
  | EventOf<typeof PartnerUserProfileChanged>
  | EventOf<typeof PartnerUserRekeyed>
  | EventOf<typeof PartnerUserDeleted>;
export const partnerUserEvents = new EventRegistry<PartnerUserEvent>([
  PartnerUserRegistered,
  PartnerUserProfileChanged,
  PartnerUserRekeyed,
  PartnerUserDeleted,
]);

/** Claims a partner's user id within a label for one user; released on re-key or delete. */
export const PartnerUserIdClaimed = defineEvent(
  'PartnerUserIdClaimed',
  1,
  z.object({ labelId: z.uuid(), userRef: z.uuid() }),
);
export const PartnerUserIdReleased = defineEvent(
  'PartnerUserIdReleased',
  1,
  z.object({ labelId: z.uuid(), userRef: z.uuid() }),
);
export type UserIdClaimEvent =
  | EventOf<typeof PartnerUserIdClaimed>
  | EventOf<typeof PartnerUserIdReleased>;
export const userIdClaimEvents = new EventRegistry<UserIdClaimEvent>([
  PartnerUserIdClaimed,
  PartnerUserIdReleased,
]);

export const partnerUserStream = (userRef: string) => `PartnerUser-${userRef}`;
/** The partner's id is hashed into the stream name: stream names are not personal data. */
export const userIdClaimStream = (labelId: string, userId: string) =>
  `PartnerUserId-${labelId}-${createHash('sha256').update(userId).digest('hex').slice(0, 40)}`;

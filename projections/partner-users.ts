import type pg from 'pg';
import { decrypt, ownerKey } from '../src/db/encryption-keys.ts';
import type { Profile } from '../src/domain/partner-user/events.ts';
import { partnerUserEvents } from '../src/domain/partner-user/events.ts';
import type { Encrypted } from '../src/domain/shared/encrypted.ts';
import type { Projection } from './projection.ts';

/** Decrypts with the user's key, read in the same transaction; a destroyed key gives nothing. */
async function profileOf(
  tx: pg.PoolClient,
  userRef: string,
  e: Encrypted | null,
): Promise<Profile> {
  if (!e) return {};
  const key = await ownerKey(tx, userRef);
  if (!key) return {};
  try {
    return decrypt(key, e) as Profile;
  } catch {
    return {};
  }
}

export const partnerUsersProjection: Projection = {
  name: 'partner-users',
  tables: ['rm_partner_users'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_partner_users (
      user_ref      uuid PRIMARY KEY,
      label_id      uuid NOT NULL,
      user_id       text NOT NULL,
      first_name    text,
      last_name     text,
      user_name     text,
      registered_at timestamptz NOT NULL,
      UNIQUE (label_id, user_id)
    );`,
  handles: new Set(partnerUserEvents.types),
  async apply(tx, stored) {
    for (const s of stored) {
      const e = partnerUserEvents.deserialize(s);
      switch (e.type) {
        case 'PartnerUserRegistered': {
          const p = await profileOf(tx, e.data.userRef, e.data.profile);
          await tx.query(
            `INSERT INTO rm_partner_users (user_ref, label_id, user_id, first_name, last_name, user_name, registered_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (user_ref) DO NOTHING`,
            [
              e.data.userRef,
              e.data.labelId,
              e.data.userId,
              p.firstName ?? null,
              p.lastName ?? null,
              p.userName ?? null,
              e.data.registeredAt,
            ],
          );
          break;
        }
        case 'PartnerUserProfileChanged': {
          const p = await profileOf(tx, e.data.userRef, e.data.profile);
          await tx.query(
            'UPDATE rm_partner_users SET first_name = $2, last_name = $3, user_name = $4 WHERE user_ref = $1',
            [e.data.userRef, p.firstName ?? null, p.lastName ?? null, p.userName ?? null],
          );
          break;
        }
        case 'PartnerUserRekeyed':
          await tx.query('UPDATE rm_partner_users SET user_id = $2 WHERE user_ref = $1', [
            e.data.userRef,
            e.data.newUserId,
          ]);
          break;
        case 'PartnerUserDeleted':
          await tx.query('DELETE FROM rm_partner_users WHERE user_ref = $1', [e.data.userRef]);
          break;
      }
    }
  },
};

export async function findUserRef(
  pool: pg.Pool,
  labelId: string,
  userId: string,
): Promise<string | undefined> {
  const r = await pool.query<{ user_ref: string }>(
    'SELECT user_ref FROM rm_partner_users WHERE label_id = $1 AND user_id = $2',
    [labelId, userId],
  );
  return r.rows[0]?.user_ref;
}

/** The editor users a label has (registered, not deleted). */
export async function editorUserCount(
  db: Pick<pg.Pool, 'query'>,
  labelId: string,
): Promise<number> {
  const r = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM rm_partner_users WHERE label_id = $1',
    [labelId],
  );
  return r.rows[0]?.n ?? 0;
}

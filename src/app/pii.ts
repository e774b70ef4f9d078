import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { type Encrypted, encryptedSchema } from '../domain/shared/encrypted.ts';

/**
 * Personal data (names, user name, e-mail) never enters an event in the clear: it is
 * encrypted with a key per user, kept outside the event store. Deleting the user
 * destroys the key, and every copy of their personal data in the history becomes
 * unreadable (crypto-shredding) while the history itself stays intact.
 */
export { type Encrypted, encryptedSchema };

export const PII_SCHEMA = `
CREATE TABLE IF NOT EXISTS pii_keys (
  user_ref   uuid PRIMARY KEY,
  key        bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);`;

export function encrypt(key: Buffer, value: unknown): Encrypted {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return {
    alg: 'A256GCM',
    iv: iv.toString('base64'),
    data: data.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
}

export function decrypt(key: Buffer, e: Encrypted): unknown {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(e.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(e.tag, 'base64'));
  return JSON.parse(
    Buffer.concat([decipher.update(Buffer.from(e.data, 'base64')), decipher.final()]).toString(
      'utf8',
    ),
  );
}

type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export async function userKey(db: Queryable, userRef: string): Promise<Buffer | undefined> {
  const r = await db.query<{ key: Buffer }>('SELECT key FROM pii_keys WHERE user_ref = $1', [
    userRef,
  ]);
  return r.rows[0]?.key;
}

/** The user's key, made on first use. */
export async function ensureUserKey(db: Queryable, userRef: string): Promise<Buffer> {
  await db.query(
    'INSERT INTO pii_keys (user_ref, key) VALUES ($1, $2) ON CONFLICT (user_ref) DO NOTHING',
    [userRef, randomBytes(32)],
  );
  return (await userKey(db, userRef))!;
}

export async function destroyUserKey(db: Queryable, userRef: string): Promise<void> {
  await db.query('DELETE FROM pii_keys WHERE user_ref = $1', [userRef]);
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { type Encrypted, encryptedSchema } from '../domain/shared/encrypted.ts';

/**
 * Secrets and personal data never enter an event in the clear: they are encrypted with
 * a key per owner (a user for their names and user name, a label for its partner
 * callback keys), kept in the database, outside the event store. Deleting a user
 * destroys their key, and every copy of their personal data in the history becomes
 * unreadable (crypto-shredding) while the history itself stays intact.
 */
export { type Encrypted, encryptedSchema };

export const ENCRYPTION_KEYS_SCHEMA = `
CREATE TABLE IF NOT EXISTS encryption_keys (
  owner_id   uuid PRIMARY KEY,
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

/** Bytes sealed with the owner's key (AES-256-GCM): iv (12), tag (16), then the ciphertext. */
export function sealBytes(key: Buffer, bytes: Uint8Array): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(bytes), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]);
}

/** Sealed bytes opened; a wrong key or a changed byte throws. */
export function openBytes(key: Buffer, sealed: Uint8Array): Buffer {
  const b = Buffer.from(sealed);
  const decipher = createDecipheriv('aes-256-gcm', key, b.subarray(0, 12));
  decipher.setAuthTag(b.subarray(12, 28));
  return Buffer.concat([decipher.update(b.subarray(28)), decipher.final()]);
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

export async function ownerKey(db: Queryable, ownerId: string): Promise<Buffer | undefined> {
  const r = await db.query<{ key: Buffer }>('SELECT key FROM encryption_keys WHERE owner_id = $1', [
    ownerId,
  ]);
  return r.rows[0]?.key;
}

/** The owner's key, made on first use. */
export async function ensureOwnerKey(db: Queryable, ownerId: string): Promise<Buffer> {
  await db.query(
    'INSERT INTO encryption_keys (owner_id, key) VALUES ($1, $2) ON CONFLICT (owner_id) DO NOTHING',
    [ownerId, randomBytes(32)],
  );
  return (await ownerKey(db, ownerId))!;
}

export async function destroyOwnerKey(db: Queryable, ownerId: string): Promise<void> {
  await db.query('DELETE FROM encryption_keys WHERE owner_id = $1', [ownerId]);
}

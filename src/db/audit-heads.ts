import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import type pg from 'pg';
import { treeHeadMessage } from '../domain/audit/leaf.ts';

/*
 * The audit log's signed tree heads and the public keys that verify them, kept beside the
 * event store (they are statements about the log, not events of it): every key that ever
 * signed stays listed, so a head signed before a rotation still verifies.
 */
export const AUDIT_HEADS_SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_keys (
  key_id     text PRIMARY KEY,
  public_key text NOT NULL,
  first_used timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS audit_tree_heads (
  tree_size  bigint NOT NULL,
  root_hash  text NOT NULL,
  signed_at  timestamptz NOT NULL,
  key_id     text NOT NULL REFERENCES audit_keys (key_id),
  signature  text NOT NULL,
  PRIMARY KEY (tree_size, key_id)
);
CREATE TABLE IF NOT EXISTS audit_mismatches (
  leaf_index bigint PRIMARY KEY,
  event_id   uuid NOT NULL,
  kind       text NOT NULL,
  detail     text NOT NULL,
  found_at   timestamptz NOT NULL DEFAULT now()
);`;

export interface TreeHead {
  treeSize: number;
  rootHash: string;
  timestamp: string;
  keyId: string;
  signature: string;
}

/** An Ed25519 signer from its 32-byte seed (base64url): its key id names its public key. */
export function auditSigner(seed: string) {
  // PKCS#8 of an Ed25519 seed: a fixed prefix, then the 32 bytes
  const der = Buffer.concat([
    Buffer.from('302e020100300506032b657004220420', 'hex'),
    Buffer.from(seed, 'base64url'),
  ]);
  const privateKey: KeyObject = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const keyId = createHash('sha256').update(publicKey).digest('hex').slice(0, 16);
  return {
    keyId,
    publicKey: publicKey.toString('base64'),
    sign: (h: Omit<TreeHead, 'keyId' | 'signature'>): TreeHead => ({
      ...h,
      keyId,
      signature: sign(null, Buffer.from(treeHeadMessage(h)), privateKey).toString('base64'),
    }),
  };
}
export type AuditSigner = ReturnType<typeof auditSigner>;

type Db = Pick<pg.Pool, 'query'>;

/** Records a signed head (and its key, the first time). */
export async function keepHead(db: Db, signer: AuditSigner, head: TreeHead): Promise<void> {
  await db.query(
    'INSERT INTO audit_keys (key_id, public_key) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [signer.keyId, signer.publicKey],
  );
  await db.query(
    `INSERT INTO audit_tree_heads (tree_size, root_hash, signed_at, key_id, signature)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
    [head.treeSize, head.rootHash, head.timestamp, head.keyId, head.signature],
  );
}

type HeadRow = {
  tree_size: string;
  root_hash: string;
  signed_at: Date;
  key_id: string;
  signature: string;
};
const toHead = (r: HeadRow): TreeHead => ({
  treeSize: Number(r.tree_size),
  rootHash: r.root_hash,
  timestamp: r.signed_at.toISOString(),
  keyId: r.key_id,
  signature: r.signature,
});

/** The latest signed head, if any. */
export async function latestHead(db: Db): Promise<TreeHead | undefined> {
  const r = await db.query<HeadRow>(
    'SELECT * FROM audit_tree_heads ORDER BY tree_size DESC, signed_at DESC LIMIT 1',
  );
  return r.rows[0] ? toHead(r.rows[0]) : undefined;
}

/** Every key that signed a head, oldest first. */
export async function publicKeys(db: Db) {
  const r = await db.query<{ key_id: string; public_key: string; first_used: Date }>(
    'SELECT key_id, public_key, first_used FROM audit_keys ORDER BY first_used, key_id',
  );
  return r.rows.map((k) => ({
    keyId: k.key_id,
    algorithm: 'Ed25519' as const,
    publicKey: k.public_key,
    firstUsedAt: k.first_used.toISOString(),
  }));
}

/** What the sweep found changed: the leaf, its event, how (changed, missing, moved). */
export async function keepMismatch(
  db: Db,
  m: { leafIndex: number; eventId: string; kind: 'changed' | 'missing' | 'moved'; detail: string },
): Promise<void> {
  await db.query(
    `INSERT INTO audit_mismatches (leaf_index, event_id, kind, detail) VALUES ($1, $2, $3, $4)
     ON CONFLICT (leaf_index) DO NOTHING`,
    [m.leafIndex, m.eventId, m.kind, m.detail],
  );
}

/** How many leaves no longer match their events, and the first of them. */
export async function mismatches(db: Db) {
  const r = await db.query<{
    n: string;
    leaf_index: string | null;
    event_id: string | null;
    kind: string | null;
    detail: string | null;
  }>(
    `SELECT (SELECT count(*) FROM audit_mismatches)::text AS n, f.leaf_index::text, f.event_id, f.kind, f.detail
     FROM (SELECT 1) one LEFT JOIN LATERAL
       (SELECT * FROM audit_mismatches ORDER BY leaf_index LIMIT 1) f ON true`,
  );
  const row = r.rows[0]!;
  return {
    count: Number(row.n),
    first:
      row.leaf_index && row.event_id
        ? {
            leafIndex: Number(row.leaf_index),
            eventId: row.event_id,
            kind: row.kind!,
            detail: row.detail!,
          }
        : undefined,
  };
}

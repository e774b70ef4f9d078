import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * API keys: `ep_<kind>_<owner id, 32 hex>_<secret, 43 chars base64url = 256 bits>`.
 * The owner id names the stream whose current state says whether the key is valid,
 * so authentication reads the event store (strongly consistent) and a rotated key is
 * refused the moment its rotation is appended. Only the sha256 of a key is stored:
 * 256 random bits need no slow hash.
 */
export const KEY_KINDS = ['adm', 'int', 'ful', 'psk', 'fac'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

export const storedKeySchema = z.object({
  prefix: z.string().min(4).max(16),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type StoredKey = z.infer<typeof storedKeySchema>;

const KEY_PATTERN = /^ep_(adm|int|ful|psk|fac)_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;

export interface IssuedKey {
  /** shown once to the caller, never stored */
  plaintext: string;
  stored: StoredKey;
}

const hash = (s: string) => createHash('sha256').update(s).digest('hex');

export function issueKey(kind: KeyKind, ownerId: string): IssuedKey {
  const secret = randomBytes(32).toString('base64url');
  const plaintext = `ep_${kind}_${ownerId.replaceAll('-', '')}_${secret}`;
  return { plaintext, stored: { prefix: plaintext.slice(0, 15), sha256: hash(plaintext) } };
}

export interface ParsedKey {
  kind: KeyKind;
  ownerId: string;
  plaintext: string;
}

export function parseKey(plaintext: string): ParsedKey | undefined {
  const m = KEY_PATTERN.exec(plaintext);
  if (!m) return undefined;
  const hex = m[2]!;
  const ownerId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { kind: m[1] as KeyKind, ownerId, plaintext };
}

/** Constant-time comparison of a presented key with a stored hash. */
export function keyMatches(plaintext: string, stored: StoredKey): boolean {
  const a = Buffer.from(hash(plaintext), 'hex');
  const b = Buffer.from(stored.sha256, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Constant-time comparison of two secrets of any length (e.g. the operator key). */
export function secretEquals(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

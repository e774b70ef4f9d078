import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Editor session tokens: `v1.<payload>.<signature>`, base64url; the payload names the
 * label, the user (the service's own user ref, stable across re-keying) and the expiry;
 * the signature is HMAC-SHA256 with EDITOR_TOKEN_SECRET.
 */
const payloadSchema = z.object({ l: z.uuid(), u: z.uuid(), e: z.number().int() });

export interface EditorSession {
  labelId: string;
  userRef: string;
  expiresAt: Date;
}

export const TOKEN_TTL_SECONDS = 8 * 3600;

const sign = (secret: string, body: string) =>
  createHmac('sha256', secret).update(`v1.${body}`).digest();

export function issueEditorToken(
  secret: string,
  labelId: string,
  userRef: string,
  now = new Date(),
  ttlSeconds = TOKEN_TTL_SECONDS,
): string {
  const e = Math.floor(now.getTime() / 1000) + ttlSeconds;
  const body = Buffer.from(JSON.stringify({ l: labelId, u: userRef, e })).toString('base64url');
  return `v1.${body}.${sign(secret, body).toString('base64url')}`;
}

/** The session a token carries, or undefined when it is malformed, forged or expired. */
export function verifyEditorToken(
  secret: string,
  token: string,
  now = new Date(),
): EditorSession | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1' || token.length > 1000) return undefined;
  const [, body, sig] = parts as [string, string, string];
  const expected = sign(secret, body);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let payload: z.infer<typeof payloadSchema>;
  try {
    payload = payloadSchema.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    return undefined;
  }
  if (payload.e * 1000 <= now.getTime()) return undefined;
  return { labelId: payload.l, userRef: payload.u, expiresAt: new Date(payload.e * 1000) };
}

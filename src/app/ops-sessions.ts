import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Principal } from './auth.ts';

/**
 * Sessions of the ops page: an API key (the operator's, or a label admin's) is exchanged
 * once for a signed session, kept in an HttpOnly cookie, so the key itself never sits in
 * the browser. `v1.<payload>.<signature>`, base64url; the signature is HMAC-SHA256 with a
 * key derived from the token secret (so an editor token can never pass for a session).
 * Each session has a random nonce; its CSRF token is an HMAC of that nonce, which a form
 * must send back and a page of another site cannot know.
 */
export type OpsViewer = { kind: 'operator' } | { kind: 'admin'; labelId: string };

export interface OpsSession {
  viewer: OpsViewer;
  expiresAt: Date;
  csrf: string;
}

export const OPS_SESSION_TTL_SECONDS = 8 * 3600;

const payloadSchema = z.object({
  k: z.enum(['operator', 'admin']),
  l: z.uuid().optional(),
  n: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  e: z.number().int(),
});

const keyOf = (secret: string) => createHmac('sha256', secret).update('ops-session').digest();
const mac = (secret: string, what: string) =>
  createHmac('sha256', keyOf(secret)).update(what).digest();
const csrfOf = (secret: string, nonce: string) =>
  mac(secret, `csrf.${nonce}`).toString('base64url');

/** Who may open the ops page with a key: the operator and label admins. */
export function opsViewerOf(principal: Principal | undefined): OpsViewer | undefined {
  if (principal?.kind === 'operator') return { kind: 'operator' };
  if (principal?.kind === 'admin') return { kind: 'admin', labelId: principal.labelId };
  return undefined;
}

export function issueOpsSession(
  secret: string,
  viewer: OpsViewer,
  now = new Date(),
): { token: string; session: OpsSession } {
  const e = Math.floor(now.getTime() / 1000) + OPS_SESSION_TTL_SECONDS;
  const n = randomBytes(16).toString('base64url');
  const body = Buffer.from(
    JSON.stringify({
      k: viewer.kind,
      ...(viewer.kind === 'admin' ? { l: viewer.labelId } : {}),
      n,
      e,
    }),
  ).toString('base64url');
  const token = `v1.${body}.${mac(secret, `v1.${body}`).toString('base64url')}`;
  return { token, session: { viewer, expiresAt: new Date(e * 1000), csrf: csrfOf(secret, n) } };
}

/** The session of a cookie value, or undefined when it is malformed, forged or expired. */
export function readOpsSession(
  secret: string,
  token: string,
  now = new Date(),
): OpsSession | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== 'v1' || token.length > 600) return undefined;
  const [, body, sig] = parts as [string, string, string];
  if (!safeEqual(Buffer.from(sig, 'base64url'), mac(secret, `v1.${body}`))) return undefined;
  let p: z.infer<typeof payloadSchema>;
  try {
    p = payloadSchema.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    return undefined;
  }
  if (p.e * 1000 <= now.getTime()) return undefined;
  if (p.k === 'admin' && !p.l) return undefined;
  const viewer: OpsViewer =
    p.k === 'admin' ? { kind: 'admin', labelId: p.l! } : { kind: 'operator' };
  return { viewer, expiresAt: new Date(p.e * 1000), csrf: csrfOf(secret, p.n) };
}

/** Whether a form's CSRF token is the session's. */
export const csrfMatches = (session: OpsSession, given: string | undefined): boolean =>
  given !== undefined && safeEqual(Buffer.from(given), Buffer.from(session.csrf));

function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

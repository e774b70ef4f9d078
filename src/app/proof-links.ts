import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * An approver's link to one item's proof: `/proofs/<token>`, the token `p1.<payload>.<mac>`
 * (base64url). The payload names the label, the item, the approver (its place in the
 * item's list), the proof version and the expiry; the MAC is HMAC-SHA256 under a key
 * derived from the service's token secret. Nothing stores the token: the same proof gives
 * the same link whenever it is made (the expiry is counted from the proof's time), so a
 * message sent again carries the link sent before.
 */
const payloadSchema = z
  .object({
    l: z.uuid(),
    i: z.uuid(),
    a: z.number().int().min(0).max(100),
    v: z.number().int().min(1),
    e: z.number().int(),
  })
  .strict();

export interface ProofLink {
  labelId: string;
  orderItemId: string;
  approver: number;
  version: number;
  expiresAt: Date;
}

const keyOf = (secret: string) => createHmac('sha256', secret).update('proof-links').digest();
const mac = (secret: string, body: string) =>
  createHmac('sha256', keyOf(secret)).update(`p1.${body}`).digest();

export function proofToken(secret: string, link: ProofLink): string {
  const body = Buffer.from(
    JSON.stringify({
      l: link.labelId,
      i: link.orderItemId,
      a: link.approver,
      v: link.version,
      e: Math.floor(link.expiresAt.getTime() / 1000),
    }),
  ).toString('base64url');
  return `p1.${body}.${mac(secret, body).toString('base64url')}`;
}

export type Verified = { ok: true; link: ProofLink } | { ok: false; why: 'invalid' | 'expired' };

/** The link a token carries; invalid when malformed or forged, expired past its time. */
export function verifyProofToken(secret: string, token: string, now = new Date()): Verified {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== 'p1' || token.length > 600)
    return { ok: false, why: 'invalid' };
  const [, body, sig] = parts as [string, string, string];
  // the signature as text, in the one encoding the service writes: a base64url decoder
  // skips what it cannot read ('=', '!', 'é' appended), which would make one link many
  const expected = Buffer.from(mac(secret, body).toString('base64url'));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, why: 'invalid' };
  const parsed = payloadSchema.safeParse(
    (() => {
      try {
        return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
    })(),
  );
  if (!parsed.success) return { ok: false, why: 'invalid' };
  const p = parsed.data;
  if (p.e * 1000 <= now.getTime()) return { ok: false, why: 'expired' };
  return {
    ok: true,
    link: {
      labelId: p.l,
      orderItemId: p.i,
      approver: p.a,
      version: p.v,
      expiresAt: new Date(p.e * 1000),
    },
  };
}

/** The form's CSRF field for a link: only a page served for that token has it. */
export const formToken = (secret: string, token: string) =>
  createHmac('sha256', keyOf(secret)).update(`form.${token}`).digest('base64url');

export function formTokenMatches(secret: string, token: string, given: string | undefined) {
  if (!given) return false;
  const a = Buffer.from(formToken(secret, token));
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Links to this service's proof pages (`<base>/proofs/<token>`), signed with its secret. */
export const proofLinkMaker =
  (publicBaseUrl: string, secret: string) =>
  (labelId: string, orderItemId: string, approver: number, version: number, expiresAt: Date) =>
    `${publicBaseUrl}/proofs/${proofToken(secret, { labelId, orderItemId, approver, version, expiresAt })}`;

import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { listOpsSessions, type OpsSessionRow } from '#projections/ops-sessions';
import { type OpsSessionState, opsSessionAggregate } from '../domain/ops-session/decider.ts';
import { type OpsViewer, opsSessionStream } from '../domain/ops-session/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import type { Principal } from './auth.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import type { StreamStateCache } from './stream-state-cache.ts';

/**
 * Sessions of the ops page. An API key (the operator's, or a label admin's) is exchanged
 * once for a session, recorded in the event log (`OpsSession-<id>`: started, ended), so
 * a session can be ended for good: at logout, or by its viewer from the sessions page. The browser
 * holds only
 * `v2.<session id>.<signature>` in an HttpOnly cookie; the signature (HMAC-SHA256 with a
 * key derived from the token secret, so no editor token can pass for one) spares the
 * event store a read for forged cookies. Every request reads the session's stream (kept
 * in the key owners' cache until the stream changes). A form's CSRF token is an HMAC of
 * the session id, which a page of another site cannot know.
 */
export type { OpsViewer };

export interface OpsSession {
  sessionId: string;
  viewer: OpsViewer;
  expiresAt: Date;
  csrf: string;
}

export const OPS_SESSION_TTL_SECONDS = 8 * 3600;

const keyOf = (secret: string) => createHmac('sha256', secret).update('ops-session').digest();
const mac = (secret: string, what: string) =>
  createHmac('sha256', keyOf(secret)).update(what).digest();
const csrfOf = (secret: string, sessionId: string) =>
  mac(secret, `csrf.${sessionId}`).toString('base64url');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a key opens on the ops page: the operator's everything, an admin's its label. */
function viewerOf(principal: Principal | undefined): OpsViewer | undefined {
  if (principal?.kind === 'operator') return { kind: 'operator' };
  if (principal?.kind === 'admin') return { kind: 'admin', labelId: principal.labelId };
  return undefined;
}

const actorOf = (v: OpsViewer) => (v.kind === 'operator' ? 'operator' : `admin:${v.labelId}`);

/**
 * Opens a session for the owner of a key that was just resolved; undefined when the key
 * does not open the ops page. Answers the cookie's value.
 */
export async function startOpsSession(
  ctx: AppContext,
  secret: string,
  principal: Principal | undefined,
  correlationId: string,
  now = new Date(),
): Promise<{ token: string; session: OpsSession } | undefined> {
  const viewer = viewerOf(principal);
  if (!viewer) return undefined;
  const sessionId = randomUUID();
  const expiresAt = new Date(now.getTime() + OPS_SESSION_TTL_SECONDS * 1000);
  await handleCommand(
    ctx.store,
    opsSessionAggregate,
    opsSessionStream(sessionId),
    { type: 'StartOpsSession', sessionId, viewer, at: now, expiresAt },
    {
      correlationId,
      actor: actorOf(viewer),
      ...(viewer.kind === 'admin' ? { labelId: viewer.labelId } : {}),
    },
  );
  const token = `v2.${sessionId}.${mac(secret, `v2.${sessionId}`).toString('base64url')}`;
  return { token, session: { sessionId, viewer, expiresAt, csrf: csrfOf(secret, sessionId) } };
}

/**
 * The session of a cookie value, or undefined when it is malformed, forged, unknown, ended or
 * expired.
 */
export async function readOpsSession(
  ctx: AppContext,
  cache: StreamStateCache | undefined,
  secret: string,
  token: string,
  now = new Date(),
): Promise<OpsSession | undefined> {
  if (token.length > 200) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== 'v2') return undefined;
  const [, sessionId, sig] = parts as [string, string, string];
  if (!UUID.test(sessionId)) return undefined;
  if (!safeEqual(Buffer.from(sig, 'base64url'), mac(secret, `v2.${sessionId}`))) return undefined;
  const stream = opsSessionStream(sessionId);
  const read = () => loadState(ctx.store, opsSessionAggregate, stream);
  const s: OpsSessionState = cache ? await cache.load(stream, read, (x) => x.exists) : await read();
  if (!s.exists || s.endedAt !== undefined || Date.parse(s.expiresAt) <= now.getTime())
    return undefined;
  return {
    sessionId,
    viewer: s.viewer,
    expiresAt: new Date(s.expiresAt),
    csrf: csrfOf(secret, sessionId),
  };
}

/**
 * Whether a session may see and end another: the same viewer (the operator, or the same label's
 * admins).
 */
const sameViewer = (a: OpsViewer, b: OpsViewer) =>
  a.kind === b.kind && (a.kind === 'operator' || (b.kind === 'admin' && a.labelId === b.labelId));

/**
 * Ends a session of the viewer's: their own at logout, or another of theirs from the
 * sessions page. Another viewer's session is not found.
 */
export async function endOpsSession(
  ctx: AppContext,
  viewer: OpsViewer,
  sessionId: string,
  reason: 'logged_out' | 'ended_by_viewer',
  metadata: EventMetadata,
): Promise<void> {
  const stream = opsSessionStream(sessionId);
  const s = await loadState(ctx.store, opsSessionAggregate, stream);
  if (!s.exists || !sameViewer(viewer, s.viewer))
    throw new DomainError('not_found', 'no such session', 'ops_session_not_found');
  const r = await handleCommand(
    ctx.store,
    opsSessionAggregate,
    stream,
    { type: 'EndOpsSession', reason, at: new Date() },
    metadata,
  );
  await ctx.readModels.seen('ops-sessions', r.appended?.position);
}

/** The viewer's sessions, newest first: those still open and those ended or expired lately. */
export function opsSessionsOf(ctx: AppContext, viewer: OpsViewer): Promise<OpsSessionRow[]> {
  return listOpsSessions(ctx.pool, viewer.kind === 'admin' ? viewer.labelId : null);
}

/** Whether a form's CSRF token is the session's. */
export const csrfMatches = (session: OpsSession, given: string | undefined): boolean =>
  given !== undefined && safeEqual(Buffer.from(given), Buffer.from(session.csrf));

/**
 * The login form's own token, before any session: a random value in a cookie of the
 * login page and its HMAC in the form. A form posted from another site carries neither
 * (the cookie is SameSite=Strict), so nobody can be logged in as someone else.
 */
export function loginChallenge(secret: string): { cookie: string; field: string } {
  const cookie = randomBytes(16).toString('base64url');
  return { cookie, field: mac(secret, `login.${cookie}`).toString('base64url') };
}

export function loginChallengeMatches(
  secret: string,
  cookie: string | undefined,
  field: string | undefined,
): boolean {
  if (!cookie || !field || cookie.length > 64 || field.length > 64) return false;
  return safeEqual(
    Buffer.from(field),
    Buffer.from(mac(secret, `login.${cookie}`).toString('base64url')),
  );
}

function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

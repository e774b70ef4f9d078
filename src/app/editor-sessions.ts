import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import {
  type CallbackKind,
  type CallbackTarget,
  callPartner,
  type PartnerLog,
  type PartnerOutcome,
} from '../partner/client.ts';
import type { AuthThrottle } from './auth-throttle.ts';
import { activeCallback } from './callbacks.ts';
import type { AppContext } from './context.ts';
import { issueEditorToken } from './editor-token.ts';
import { registerPartnerUser } from './partner-users.ts';

/** The partner said no, or could not answer usefully: the route says which, as the partner did. */
export class PartnerRefused extends Error {
  override name = 'PartnerRefused';
  constructor(
    readonly kind: CallbackKind,
    readonly outcome: Exclude<PartnerOutcome<CallbackKind>, { ok: true }>,
  ) {
    super(`the partner refused the ${kind}`);
  }
}

export interface SessionDeps {
  app: AppContext;
  throttle: AuthThrottle;
  editorTokenSecret: string;
  partnerTimeoutMs: number;
}

/** Who asks: the client's address (for the limits) and the request's log and metadata. */
export interface Caller {
  address: string;
  log: PartnerLog;
  metadata: EventMetadata;
}

export interface PartnerUserRecord {
  id: string;
  firstName?: string;
  lastName?: string;
  userName?: string;
}

async function partnerOf(ctx: AppContext, labelId: string): Promise<CallbackTarget> {
  const t = await activeCallback(ctx.store, ctx.pool, labelId);
  if (t === undefined) throw new DomainError('not_found', 'label not found', 'label_not_found');
  if (t === null)
    throw new DomainError(
      'unavailable',
      'this label has no partner login configured',
      'partner_not_configured',
    );
  return t;
}

const clean = (u: {
  id: string;
  firstName?: string | null | undefined;
  lastName?: string | null | undefined;
  userName?: string | null | undefined;
}): PartnerUserRecord => ({
  id: u.id,
  ...(u.firstName ? { firstName: u.firstName } : {}),
  ...(u.lastName ? { lastName: u.lastName } : {}),
  ...(u.userName ? { userName: u.userName } : {}),
});

/**
 * A call to the label's partner: the label and its callbacks are checked first (an
 * unknown label is not counted), then `limit` takes the attempt's place in the limits.
 */
async function askPartner<K extends CallbackKind, L>(
  deps: SessionDeps,
  labelId: string,
  kind: K,
  body: Record<string, unknown>,
  caller: Caller,
  limit: () => Promise<L>,
): Promise<{ outcome: PartnerOutcome<K>; limited: L }> {
  const partner = await partnerOf(deps.app, labelId);
  const limited = await limit();
  const outcome = await callPartner(partner, kind, body, {
    timeoutMs: deps.partnerTimeoutMs,
    log: caller.log,
  });
  return { outcome, limited };
}

/** The partner's user becomes (or stays) a partner user of the label, with a session. */
async function sessionFor(
  deps: SessionDeps,
  labelId: string,
  user: PartnerUserRecord,
  caller: Caller,
) {
  const { userRef } = await registerPartnerUser(
    deps.app,
    labelId,
    user.id,
    { firstName: user.firstName, lastName: user.lastName, userName: user.userName },
    caller.metadata,
  );
  return { token: issueEditorToken(deps.editorTokenSecret, labelId, userRef), user };
}

/** An account in the partner's system, and an editor session for it. */
export async function signUp(
  deps: SessionDeps,
  labelId: string,
  body: {
    userName: string;
    password: string;
    firstName?: string | undefined;
    lastName?: string | undefined;
    language: string;
  },
  caller: Caller,
) {
  const { outcome } = await askPartner(deps, labelId, 'signup', body, caller, () =>
    deps.throttle.beforeSignup(labelId, body.userName, caller.address),
  );
  if (!outcome.ok) throw new PartnerRefused('signup', outcome);
  // the partner's record, with what the user gave where the partner left a field out
  const user = clean({
    ...outcome.value,
    firstName: outcome.value.firstName ?? body.firstName,
    lastName: outcome.value.lastName ?? body.lastName,
    userName: outcome.value.userName ?? body.userName,
  });
  return sessionFor(deps, labelId, user, caller);
}

/** A login through the partner's system, within the limits, and an editor session. */
export async function logIn(
  deps: SessionDeps,
  labelId: string,
  body: { userName: string; password: string; language: string },
  caller: Caller,
) {
  const { outcome, limited: attempt } = await askPartner(deps, labelId, 'login', body, caller, () =>
    deps.throttle.beforeLogin(labelId, body.userName, caller.address),
  );
  if (!outcome.ok) {
    await (outcome.failure === 'rejected' ? attempt.rejected() : attempt.unanswered());
    throw new PartnerRefused('login', outcome);
  }
  await attempt.succeeded();
  return sessionFor(deps, labelId, clean(outcome.value), caller);
}

/** The partner's texts for the dialog after a password reset request. */
export async function forgotPassword(
  deps: SessionDeps,
  labelId: string,
  body: { userName: string; language: string },
  caller: Caller,
) {
  const { outcome } = await askPartner(deps, labelId, 'forgot-password', body, caller, () =>
    deps.throttle.beforeForgotPassword(labelId, body.userName, caller.address),
  );
  if (!outcome.ok) throw new PartnerRefused('forgot-password', outcome);
  return outcome.value;
}

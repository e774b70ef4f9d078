import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { resolveApiKey } from '../../../app/auth.ts';
import {
  csrfMatches,
  endOpsSession,
  loginChallenge,
  loginChallengeMatches,
  OPS_SESSION_TTL_SECONDS,
  readOpsSession,
  startOpsSession,
} from '../../../app/ops-sessions.ts';
import { metadataOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { acceptForms, fromAnotherSite } from '../../form-body.ts';
import { HttpProblem } from '../../problem.ts';
import { opsActions } from './actions.ts';
import { OPS_CSS, OPS_JS } from './assets.ts';
import { sessionOf } from './context.ts';
import { opsReadPages } from './pages.ts';
import { loginPage } from './views/login.ts';

const COOKIE = 'ops_session';
/** the login form's own token, before there is a session (login CSRF) */
const LOGIN_COOKIE = 'ops_login';
const LOGIN_TTL_SECONDS = 3600;

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

/**
 * The ops page (/ops): server-rendered HTML for operators and label admins. An API key
 * is exchanged once for an HttpOnly, SameSite=Strict session cookie; every action is a
 * form post that carries the session's CSRF token. Hidden from the OpenAPI document
 * (it is a site, not an API); its errors are problem details like every other answer.
 */
export const opsSite: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const secret = deps.config.editorTokenSecret;
  const secure = deps.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  const setCookie = (reply: FastifyReply, value: string, maxAge: number, name = COOKIE) =>
    reply.header(
      'set-cookie',
      `${name}=${value}; Path=/ops; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`,
    );

  // forms post url-encoded fields, here only
  acceptForms(app);
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  const hidden = { hide: true } as const;
  app.get('/ops/assets/ops.css', { schema: hidden }, async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(OPS_CSS),
  );
  app.get('/ops/assets/ops.js', { schema: hidden }, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(OPS_JS),
  );
  app.get('/', { schema: hidden }, async (_request, reply) => reply.redirect('/ops', 302));

  app.get('/ops/login', { schema: hidden }, async (request, reply) => {
    const failed = (request.query as Record<string, unknown>).failed !== undefined;
    const challenge = loginChallenge(secret);
    setCookie(reply, challenge.cookie, LOGIN_TTL_SECONDS, LOGIN_COOKIE);
    return reply
      .type('text/html; charset=utf-8')
      .send(
        loginPage(challenge.field, failed ? 'That key does not open the ops page.' : undefined),
      );
  });

  app.post('/ops/login', { schema: hidden }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const field = typeof body._login === 'string' ? body._login : undefined;
    // a form posted from another site logs nobody in (login CSRF): no session cookie
    if (fromAnotherSite(request))
      throw new HttpProblem(403, 'csrf_failed', 'the login form was sent from another site');
    if (!loginChallengeMatches(secret, cookieOf(request, LOGIN_COOKIE), field))
      throw new HttpProblem(
        403,
        'csrf_failed',
        'the login form lacks its token: open /ops/login and log in from there',
      );
    const key = body.key;
    const principal =
      typeof key === 'string' && key.length > 0 && key.length <= 200
        ? await resolveApiKey(deps.app.store, deps.config.operatorApiKey, key, deps.principals)
        : undefined;
    const started = await startOpsSession(deps.app, secret, principal, request.id);
    // post, redirect, get: a failed login is a page that says so, not an error to resend
    if (!started) return reply.redirect('/ops/login?failed', 303);
    setCookie(reply, started.token, OPS_SESSION_TTL_SECONDS);
    setCookie(reply, '', 0, LOGIN_COOKIE);
    return reply.redirect('/ops', 303);
  });

  await app.register(async (site) => {
    site.decorateRequest('opsSession', null);
    site.addHook('onRequest', async (request, reply) => {
      const token = cookieOf(request, COOKIE);
      const session = token
        ? await readOpsSession(deps.app, deps.principals, secret, token)
        : undefined;
      if (!session) {
        if (request.method === 'GET') return reply.redirect('/ops/login', 303);
        throw new HttpProblem(401, 'no_session', 'log in at /ops/login first');
      }
      request.opsSession = session;
      // what the site records is recorded as the key's owner would have it recorded
      request.principal =
        session.viewer.kind === 'operator'
          ? { kind: 'operator' }
          : { kind: 'admin', labelId: session.viewer.labelId };
    });
    // every post of the site carries the session's CSRF token (and comes from this site),
    // checked before anything else of the form
    site.addHook('preValidation', async (request) => {
      if (request.method !== 'POST') return;
      if (fromAnotherSite(request))
        throw new HttpProblem(403, 'csrf_failed', 'the form was sent from another site');
      const given = (request.body as Record<string, unknown> | undefined)?._csrf;
      if (!csrfMatches(sessionOf(request), typeof given === 'string' ? given : undefined))
        throw new HttpProblem(403, 'csrf_failed', 'the form lacks the session’s CSRF token');
    });
    // the session ends for good: its cookie, kept or copied, opens nothing afterwards
    site.post('/ops/logout', { schema: hidden }, async (request, reply) => {
      const session = sessionOf(request);
      await endOpsSession(
        deps.app,
        session.viewer,
        session.sessionId,
        'logged_out',
        metadataOf(request),
      );
      setCookie(reply, '', 0);
      return reply.redirect('/ops/login', 303);
    });
    await site.register(opsReadPages, { deps });
    await site.register(opsActions, { deps });
  });
};

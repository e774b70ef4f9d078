import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { resolveApiKey } from '../../../app/auth.ts';
import {
  csrfMatches,
  issueOpsSession,
  OPS_SESSION_TTL_SECONDS,
  opsViewerOf,
  readOpsSession,
} from '../../../app/ops-sessions.ts';
import type { HttpDeps } from '../../deps.ts';
import { HttpProblem } from '../../problem.ts';
import { opsActions } from './actions.ts';
import { OPS_CSS, OPS_JS } from './assets.ts';
import { sessionOf } from './context.ts';
import { opsReadPages } from './pages.ts';
import { loginPage } from './views/login.ts';

const COOKIE = 'ops_session';

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

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
  const setCookie = (reply: FastifyReply, value: string, maxAge: number) =>
    reply.header(
      'set-cookie',
      `${COOKIE}=${value}; Path=/ops; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`,
    );

  // forms post url-encoded fields, here only
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
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
    return reply
      .type('text/html; charset=utf-8')
      .send(loginPage(failed ? 'That key does not open the ops page.' : undefined));
  });

  app.post('/ops/login', { schema: hidden }, async (request, reply) => {
    const key = (request.body as Record<string, unknown> | undefined)?.key;
    const principal =
      typeof key === 'string' && key.length > 0 && key.length <= 200
        ? await resolveApiKey(deps.app.store, deps.config.operatorApiKey, key, deps.principals)
        : undefined;
    const viewer = opsViewerOf(principal);
    // post, redirect, get: a failed login is a page that says so, not an error to resend
    if (!viewer) return reply.redirect('/ops/login?failed', 303);
    setCookie(reply, issueOpsSession(secret, viewer).token, OPS_SESSION_TTL_SECONDS);
    return reply.redirect('/ops', 303);
  });

  await app.register(async (site) => {
    site.decorateRequest('opsSession', null);
    site.addHook('onRequest', async (request, reply) => {
      const token = cookieOf(request, COOKIE);
      const session = token ? readOpsSession(secret, token) : undefined;
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
      const origin = request.headers.origin;
      if (origin && origin !== 'null' && hostOf(origin) !== request.headers.host)
        throw new HttpProblem(403, 'csrf_failed', 'the form was sent from another site');
      const given = (request.body as Record<string, unknown> | undefined)?._csrf;
      if (!csrfMatches(sessionOf(request), typeof given === 'string' ? given : undefined))
        throw new HttpProblem(403, 'csrf_failed', 'the form lacks the session’s CSRF token');
    });
    site.post('/ops/logout', { schema: hidden }, async (_request, reply) => {
      setCookie(reply, '', 0);
      return reply.redirect('/ops/login', 303);
    });
    await site.register(opsReadPages, { deps });
    await site.register(opsActions, { deps });
  });
};

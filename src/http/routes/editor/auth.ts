import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { activeCallback } from '../../../app/callbacks.ts';
import { issueEditorToken } from '../../../app/editor-token.ts';
import { registerPartnerUser } from '../../../app/partner-users.ts';
import { type CallbackKind, callPartner, type PartnerOutcome } from '../../../partner/client.ts';
import { forgotPasswordResultSchema } from '../../../partner/responses.ts';
import { type HttpDeps, readYourWrite } from '../../deps.ts';
import { HttpProblem } from '../../problem.ts';
import { problems } from '../../schemas/common.ts';

const tags = ['Editor'];

/** A BCP 47 language tag: `en`, `de-CH`, `zh-Hant-TW`. */
const language = z
  .string()
  .max(35)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'a language tag such as en or de-CH')
  .refine((tag) => {
    try {
      return Intl.getCanonicalLocales(tag).length === 1;
    } catch {
      return false;
    }
  }, 'a language tag such as en or de-CH');

const userName = z.string().trim().min(1).max(320);
const password = z.string().min(1).max(1000);
const name = z.string().max(200).optional();

const userSchema = z.object({
  id: z.string(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  userName: z.string().optional(),
});
const sessionSchema = z.object({ token: z.string(), user: userSchema });
const labelParams = z.object({ labelId: z.uuid({ message: 'must be a UUID' }) }).strict();

/** The partner's answer as an HTTP problem: 4xx stays 4xx (401 for a login), the rest 502. */
function partnerProblem(
  kind: CallbackKind,
  outcome: Exclude<PartnerOutcome<CallbackKind>, { ok: true }>,
): HttpProblem {
  switch (outcome.failure) {
    case 'rejected':
      return new HttpProblem(
        kind === 'login' ? 401 : outcome.status,
        outcome.code ?? 'partner_rejected',
        outcome.message ?? 'the partner refused the request',
      );
    case 'unavailable':
      return new HttpProblem(
        502,
        outcome.code ?? 'partner_unavailable',
        outcome.message ?? 'the partner system is not available; try again later',
      );
    case 'timeout':
      return new HttpProblem(
        502,
        'partner_timeout',
        'the partner system did not answer in time; try again later',
      );
    case 'invalid_response':
      return new HttpProblem(
        502,
        'partner_invalid_response',
        'the partner system gave an answer that cannot be used',
      );
  }
}

/** Signup, login and forgot password through the label's partner-hosted callbacks. */
export const editorAuthRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  async function target(labelId: string) {
    const t = await activeCallback(deps.store, deps.pool, labelId);
    if (t === undefined) throw new HttpProblem(404, 'label_not_found', 'label not found');
    if (t === null)
      throw new HttpProblem(
        503,
        'partner_not_configured',
        'this label has no partner login configured',
      );
    return t;
  }

  async function session(
    labelId: string,
    request: FastifyRequest,
    user: z.infer<typeof userSchema>,
  ) {
    const { userRef, position } = await registerPartnerUser(
      deps.store,
      deps.pool,
      labelId,
      user.id,
      {
        firstName: user.firstName,
        lastName: user.lastName,
        userName: user.userName,
      },
      { actor: 'editor', correlationId: request.id },
    );
    await readYourWrite(deps, 'partner-users', position);
    return { token: issueEditorToken(deps.config.editorTokenSecret, labelId, userRef), user };
  }

  const clean = (u: {
    id: string;
    firstName?: string | null;
    lastName?: string | null;
    userName?: string | null;
  }) => ({
    id: u.id,
    ...(u.firstName ? { firstName: u.firstName } : {}),
    ...(u.lastName ? { lastName: u.lastName } : {}),
    ...(u.userName ? { userName: u.userName } : {}),
  });

  app.post(
    '/:labelId/signup',
    {
      schema: {
        tags,
        summary: "Create an account in the partner's system and start an editor session",
        params: labelParams,
        body: z
          .object({ userName, password, firstName: name, lastName: name, language })
          .strict()
          .meta({
            example: {
              userName: 'ada@example.com',
              password: 'correct horse battery',
              firstName: 'Ada',
              lastName: 'Lovelace',
              language: 'en',
            },
          }),
        response: { 201: sessionSchema, ...problems(400, 404, 409, 413, 415, 422, 429, 502, 503) },
      },
    },
    async (request, reply) => {
      const { labelId } = request.params;
      const partner = await target(labelId);
      await deps.throttle.beforeSignup(labelId, request.body.userName, request.ip);
      const outcome = await callPartner(partner, 'signup', request.body, {
        timeoutMs: deps.config.partnerTimeoutMs,
        log: request.log,
      });
      if (!outcome.ok) throw partnerProblem('signup', outcome);
      const user = clean({
        ...outcome.value,
        firstName: outcome.value.firstName ?? request.body.firstName,
        lastName: outcome.value.lastName ?? request.body.lastName,
        userName: outcome.value.userName ?? request.body.userName,
      });
      return reply.status(201).send(await session(labelId, request, user));
    },
  );

  app.post(
    '/:labelId/login',
    {
      schema: {
        tags,
        summary: "Log in through the partner's system and start an editor session",
        params: labelParams,
        body: z
          .object({ userName, password, language })
          .strict()
          .meta({
            example: {
              userName: 'ada@example.com',
              password: 'correct horse battery',
              language: 'de-CH',
            },
          }),
        response: { 200: sessionSchema, ...problems(400, 401, 404, 413, 415, 429, 502, 503) },
      },
    },
    async (request) => {
      const { labelId } = request.params;
      const partner = await target(labelId);
      const attempt = await deps.throttle.beforeLogin(labelId, request.body.userName, request.ip);
      const outcome = await callPartner(partner, 'login', request.body, {
        timeoutMs: deps.config.partnerTimeoutMs,
        log: request.log,
      });
      if (!outcome.ok) {
        await (outcome.failure === 'rejected' ? attempt.rejected() : attempt.unanswered());
        throw partnerProblem('login', outcome);
      }
      await attempt.succeeded();
      return session(labelId, request, clean(outcome.value));
    },
  );

  app.post(
    '/:labelId/forgot-password',
    {
      schema: {
        tags,
        summary: "Ask the partner's system to reset a password; answers the texts for the dialog",
        params: labelParams,
        body: z
          .object({ userName, language })
          .strict()
          .meta({ example: { userName: 'ada@example.com', language: 'en' } }),
        response: {
          200: forgotPasswordResultSchema,
          ...problems(400, 404, 413, 415, 429, 502, 503),
        },
      },
    },
    async (request) => {
      const { labelId } = request.params;
      const partner = await target(labelId);
      await deps.throttle.beforeForgotPassword(labelId, request.body.userName, request.ip);
      const outcome = await callPartner(partner, 'forgot-password', request.body, {
        timeoutMs: deps.config.partnerTimeoutMs,
        log: request.log,
      });
      if (!outcome.ok) throw partnerProblem('forgot-password', outcome);
      return outcome.value;
    },
  );
};

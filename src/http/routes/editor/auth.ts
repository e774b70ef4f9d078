import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type Caller,
  forgotPassword,
  logIn,
  PartnerRefused,
  type SessionDeps,
  signUp,
} from '../../../app/editor-sessions.ts';
import type { CallbackKind, PartnerOutcome } from '../../../partner/client.ts';
import { forgotPasswordResultSchema } from '../../../partner/responses.ts';
import { metadataOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
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

const userSchema = z
  .object({
    id: z.string(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    userName: z.string().optional(),
  })
  .meta({ id: 'EditorUser', description: "the user as the partner's system knows them" });
const sessionSchema = z
  .object({
    token: z.string().describe('the editor token: send it as Authorization: Bearer (8 hours)'),
    user: userSchema,
  })
  .meta({ id: 'EditorSession' });
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

/** What the partner said, as an HTTP problem (a PartnerRefused from the use case). */
async function asPartnerAnswer<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof PartnerRefused) throw partnerProblem(err.kind, err.outcome);
    throw err;
  }
}

/** Signup, login and forgot password through the label's partner-hosted callbacks. */
export const editorAuthRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const sessions: SessionDeps = {
    app: deps.app,
    throttle: deps.throttle,
    editorTokenSecret: deps.config.editorTokenSecret,
    partnerTimeoutMs: deps.config.partnerTimeoutMs,
  };
  const caller = (request: FastifyRequest): Caller => ({
    address: request.ip,
    log: request.log,
    metadata: metadataOf(request),
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
            id: 'SignUp',
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
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await asPartnerAnswer(() =>
            signUp(sessions, request.params.labelId, request.body, caller(request)),
          ),
        ),
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
            id: 'LogIn',
            example: {
              userName: 'ada@example.com',
              password: 'correct horse battery',
              language: 'de-CH',
            },
          }),
        response: { 200: sessionSchema, ...problems(400, 401, 404, 409, 413, 415, 429, 502, 503) },
      },
    },
    async (request) =>
      asPartnerAnswer(() => logIn(sessions, request.params.labelId, request.body, caller(request))),
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
          .meta({ id: 'ForgotPassword', example: { userName: 'ada@example.com', language: 'en' } }),
        response: {
          200: forgotPasswordResultSchema.meta({
            id: 'PasswordResetText',
            description: 'the texts the dialog shows, as the partner wrote them',
          }),
          ...problems(400, 404, 413, 415, 429, 502, 503),
        },
      },
    },
    async (request) =>
      asPartnerAnswer(() =>
        forgotPassword(sessions, request.params.labelId, request.body, caller(request)),
      ),
  );
};

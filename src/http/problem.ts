import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, type DomainErrorKind } from '../domain/shared/decider.ts';
import { unavailableDependency } from '../errors.ts';
import { WrongExpectedRevisionError } from '../eventstore/port.ts';
import { COST_CLASSES } from '../shares/door.ts';

/** RFC 9457 problem details, the body of every error answer. */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    detail: z.string(),
    code: z.string().optional(),
    costClass: z
      .enum(COST_CLASSES)
      .optional()
      .describe("with 429 over_share: the cost class whose share the label's requests took up"),
    errors: z
      .array(
        z
          .object({ path: z.string(), message: z.string() })
          .meta({ id: 'ProblemField', description: 'a field at fault (a dotted path) and why' }),
      )
      .optional(),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof problemSchema>;

export const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** An error that is answered as it is: status, a code for machines, a detail for people. */
export class HttpProblem extends Error {
  override name = 'HttpProblem';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: { path: string; message: string }[],
    /** the problem type when it differs from the code (a partner's own code, say) */
    readonly typeCode?: string,
  ) {
    super(detail);
  }
}

export function toProblem(
  status: number,
  code: string,
  detail: string,
  errors?: Problem['errors'],
  typeCode = code,
): Problem {
  return {
    type: `/problems/${typeCode}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors ? { errors } : {}),
  };
}

const DOMAIN_STATUS: Record<DomainErrorKind, number> = {
  not_found: 404,
  conflict: 409,
  invalid: 400,
  forbidden: 403,
  rate_limited: 429,
  unavailable: 503,
};

const FASTIFY_CODES: Record<string, [number, string, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [
    413,
    'body_too_large',
    'the request body is larger than this route accepts',
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    415,
    'unsupported_media_type',
    'send the body as application/json',
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    400,
    'invalid_content_length',
    'Content-Length does not match the body',
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'malformed_json', 'the JSON body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'malformed_json', 'the body is not valid JSON'],
};

function validationErrors(error: FastifyError): Problem['errors'] {
  const context = (error as { validationContext?: string }).validationContext;
  return (error.validation ?? []).map((v) => {
    const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const prefix =
      context && context !== 'body' ? (context === 'querystring' ? 'query' : context) : '';
    return {
      path: [prefix, path].filter(Boolean).join('.') || '(root)',
      message: v.message ?? 'invalid',
    };
  });
}

/** Seconds a client should wait before retrying while a dependency is down. */
export const RETRY_AFTER_UNAVAILABLE = 5;

const DEPENDENCY_NAMES = {
  database: 'the database',
  eventStore: 'the event store',
  temporal: 'the workflow service',
} as const;

export function errorToProblem(error: unknown): { problem: Problem; internal: boolean } {
  const down = unavailableDependency(error);
  if (down) {
    return {
      problem: toProblem(
        503,
        'service_unavailable',
        `${DEPENDENCY_NAMES[down]} is not reachable at the moment; retry in a few seconds`,
      ),
      internal: false,
    };
  }
  if (error instanceof HttpProblem) {
    return {
      problem: toProblem(error.status, error.code, error.detail, error.errors, error.typeCode),
      internal: false,
    };
  }
  if (error instanceof DomainError) {
    const { field } = error.details;
    return {
      problem: toProblem(
        DOMAIN_STATUS[error.kind],
        error.code,
        error.message,
        field ? [{ path: field, message: error.message }] : undefined,
      ),
      internal: false,
    };
  }
  if (error instanceof WrongExpectedRevisionError) {
    return {
      problem: toProblem(
        409,
        'concurrent_modification',
        'the resource was changed concurrently; retry',
      ),
      internal: false,
    };
  }
  const e = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(e) || e.validation) {
    return {
      problem: toProblem(400, 'validation_failed', 'the request is invalid', validationErrors(e)),
      internal: false,
    };
  }
  const known = e.code ? FASTIFY_CODES[e.code] : undefined;
  if (known) return { problem: toProblem(known[0], known[1], known[2]), internal: false };
  if (e instanceof SyntaxError || (e.statusCode === 400 && /JSON/i.test(e.message ?? ''))) {
    return {
      problem: toProblem(400, 'malformed_json', 'the body is not valid JSON'),
      internal: false,
    };
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return {
      problem: toProblem(e.statusCode, 'bad_request', 'the request cannot be processed'),
      internal: false,
    };
  }
  return {
    problem: toProblem(500, 'internal', 'an internal error occurred; it has been logged'),
    internal: true,
  };
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.status(problem.status).type('application/problem+json').send(problem);
}

/** What a route takes as its body, when not JSON (`config: { bodyTypes }`): named in its 415. */
export interface BodyTypesConfig {
  bodyTypes?: string[];
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const { problem, internal } = errorToProblem(error);
  const bodyTypes = (request.routeOptions?.config as BodyTypesConfig | undefined)?.bodyTypes;
  if (problem.code === 'unsupported_media_type' && bodyTypes)
    problem.detail = `send the body as ${bodyTypes.join(' or ')}`;
  if (internal) request.log.error({ err: error }, 'unhandled error');
  else if (problem.code === 'service_unavailable')
    request.log.warn({ status: 503, error: (error as Error).message }, 'dependency unavailable');
  else request.log.info({ status: problem.status, code: problem.code }, 'request rejected');
  if (error instanceof DomainError && error.details.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(error.details.retryAfterSeconds));
  if (problem.status === 503 && !reply.hasHeader('retry-after'))
    reply.header('retry-after', String(RETRY_AFTER_UNAVAILABLE));
  return sendProblem(reply, problem);
}

/**
 * What every server of the app shares: zod schemas on routes, and problem details for
 * every error and for an unknown route.
 */
export function answerWithProblems(
  app: FastifyInstance,
  notFound: (request: FastifyRequest, reply: FastifyReply) => unknown = (request, reply) =>
    sendProblem(
      reply,
      toProblem(404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`),
    ),
): void {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFound);
}

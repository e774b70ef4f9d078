import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { HttpProblem, type Problem, sendProblem, toProblem } from './problem.ts';

/**
 * What the framework and Node answer before any route runs, made problem details like
 * every other error: malformed percent-escapes, parameters past the router's limit,
 * unsupported methods (405 with Allow), oversized headers and broken requests.
 */

/** fastify's frameworkErrors: errors of the router, before a route is chosen. */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const path = request.url.split('?')[0];
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendProblem(reply, toProblem(414, 'uri_too_long', 'a path segment of this URL is too long'));
    return;
  }
  sendProblem(
    reply,
    toProblem(
      400,
      'bad_url',
      `the URL ${JSON.stringify(path).slice(0, 200)} has a malformed percent-escape or is not valid UTF-8`,
    ),
  );
}

const ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * onRequest hook: a query string with a malformed percent-escape (or one that is not
 * UTF-8) is refused like such a path, rather than read with replacement characters.
 */
export async function refuseMalformedQuery(request: FastifyRequest): Promise<void> {
  const at = request.url.indexOf('?');
  if (at < 0) return;
  const query = request.url.slice(at + 1);
  let ok = !ESCAPE.test(query);
  if (ok) {
    try {
      for (const part of query.split(/[&=]/)) decodeURIComponent(part.replaceAll('+', ' '));
    } catch {
      ok = false;
    }
  }
  if (!ok)
    throw new HttpProblem(
      400,
      'bad_url',
      'the query string has a malformed percent-escape or is not valid UTF-8',
    );
}

function rawProblem(socket: Socket, problem: Problem): void {
  const body = JSON.stringify(problem);
  socket.write(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/**
 * Node's own parser errors (before fastify sees a request): 431 for headers over the
 * limit, 408 for a request that took too long, 400 for anything it cannot parse.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    if (err.code === 'HPE_HEADER_OVERFLOW')
      rawProblem(
        socket,
        toProblem(431, 'headers_too_large', 'the request headers are larger than 16 KiB'),
      );
    else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
      rawProblem(socket, toProblem(408, 'request_timeout', 'the request took too long to arrive'));
    else
      rawProblem(
        socket,
        toProblem(400, 'malformed_request', 'the request is not well-formed HTTP/1.1'),
      );
  }
  socket.destroy(err);
}

type HTTPMethod = FindMyWay.HTTPMethod;

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Remembers every route's path and methods, so that a request for a known path with a
 * method it does not take gets 405 with Allow instead of 404.
 */
export function methodsByPath(app: FastifyInstance): (method: string, url: string) => string[] {
  const router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH });
  const noop = () => {};
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (!router.hasRoute(m as HTTPMethod, route.url)) router.on(m as HTTPMethod, route.url, noop);
    }
  });
  return (method, url) => {
    const path = url.split('?')[0] ?? url;
    return METHODS.filter((m) => m !== method && router.find(m, path) !== null);
  };
}

/**
 * The router's limit on one path parameter (encoded): above any id's own limit, so ids are checked
 * by their schema.
 */
export const MAX_PARAM_LENGTH = 2048;

/**
 * 404 for an unknown path, 405 with Allow for a known path and another method. Also an
 * onRequest hook: fastify answers some requests of unrouted methods (QUERY without a
 * Content-Type) before its not-found handler would run.
 */
export function notFoundOrNotAllowed(allowed: (method: string, url: string) => string[]) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const methods = allowed(request.method, request.url);
    if (methods.length > 0) {
      reply.header('allow', methods.join(', '));
      return sendProblem(
        reply,
        toProblem(
          405,
          'method_not_allowed',
          `${request.method} is not allowed here; use ${methods.join(', ')}`,
        ),
      );
    }
    return sendProblem(
      reply,
      toProblem(404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`),
    );
  };
}

/** onRequest hook: an unrouted request is answered 404 or 405 before anything else looks at it. */
export function answerUnrouted(allowed: (method: string, url: string) => string[]) {
  const answer = notFoundOrNotAllowed(allowed);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.is404) return answer(request, reply);
  };
}

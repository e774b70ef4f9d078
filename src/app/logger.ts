import pino, { type DestinationStream, type Logger } from 'pino';

/** Paths pino blanks out wherever they occur in a log object: keys and passwords. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'headers["x-api-key"]',
  'headers.authorization',
  '*.apiKey',
  '*.password',
  '*.adminApiKey',
  '*.fulfillmentApiKey',
  'apiKey',
  'password',
];

/**
 * URLs that grant access by themselves (a proof link approves a proof): the part that is
 * the token is replaced before a URL is logged. Every such route is listed here.
 */
const BEARER_PATHS: RegExp[] = [/^(\/proofs\/)[^/?#]+/];

/** A URL as it may be logged: its bearer token replaced, its query string dropped. */
export function withoutBearerTokens(url: string): string {
  const bare = url.split('?')[0]!;
  const kept = BEARER_PATHS.reduce((u, path) => u.replace(path, '$1[redacted]'), bare);
  return bare === url ? kept : `${kept}?[query]`;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  host?: string;
  socket?: { remotePort?: number };
}

/**
 * The request as a log line shows it (fastify's own serializer otherwise, which writes
 * the URL whole): method, path without bearer tokens or query, host, client address.
 */
function requestForLog(req: LoggedRequest) {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : withoutBearerTokens(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      // fastify takes the logger's own `req` serializer over its default
      serializers: { req: requestForLog },
    },
    destination,
  );
}

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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}

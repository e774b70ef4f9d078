/**
 * Which failures mean "a dependency is down or busy" rather than "this input is bad".
 * The distinction decides three things: an HTTP answer (503 with Retry-After, not 500),
 * whether a projection or reactor parks an event (never for these: the event is not at
 * fault) and what readiness reports.
 */
export type Dependency = 'database' | 'eventStore' | 'temporal';

const NODE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT', // a Unix socket that is gone
]);

/** SQLSTATE classes of the server or the connection, not of the statement's data. */
const SERVER_CLASSES = ['08', '53', '57', '58', 'XX'];

/** pg's own messages for a connection that ended or never came. */
const PG_CLIENT_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|the database system is (starting up|shutting down|in recovery mode)|Client was closed/i;

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = codeOf(err);
  if (code && NODE_NETWORK_CODES.has(code)) return true;
  if (code && /^[0-9A-Z]{5}$/.test(code) && SERVER_CLASSES.includes(code.slice(0, 2))) return true;
  return PG_CLIENT_MESSAGES.test(err.message);
}

/**
 * Errors of the schema or of privileges (missing table, permission denied): the same
 * for every event, so parking would empty a read model event by event. They stop the
 * projection instead, visibly, until someone fixes the cause.
 */
export function isSystemicDatabaseError(err: unknown): boolean {
  const code = codeOf(err);
  if (!code || !/^[0-9A-Z]{5}$/.test(code)) return false;
  return ['42', '3D', '3F', '0A', '40', '55', '54'].includes(code.slice(0, 2));
}

const ESDB_UNAVAILABLE = new Set([
  'UnavailableError',
  'DeadlineExceededError',
  'NotLeaderError',
  'CancelledError',
]);

export function isEventStoreUnavailable(err: unknown): boolean {
  return err instanceof Error && ESDB_UNAVAILABLE.has(err.name);
}

/** gRPC status codes Temporal's client reports for a server it cannot reach. */
const GRPC_UNAVAILABLE = new Set([4, 14]); // DEADLINE_EXCEEDED, UNAVAILABLE

export function isTemporalUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'ServiceError' || err.name === 'TransportError') {
    const cause = (err as { cause?: { code?: unknown } }).cause;
    return typeof cause?.code !== 'number' || GRPC_UNAVAILABLE.has(cause.code);
  }
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' && GRPC_UNAVAILABLE.has(code);
}

/** The dependency an error says is unreachable, if it says so. */
export function unavailableDependency(err: unknown): Dependency | undefined {
  if (isDatabaseUnavailable(err)) return 'database';
  if (isEventStoreUnavailable(err)) return 'eventStore';
  if (isTemporalUnavailable(err)) return 'temporal';
  return undefined;
}

/** An error that retrying later can cure without anyone changing code or data. */
export function isTransient(err: unknown): boolean {
  return unavailableDependency(err) !== undefined || isSystemicDatabaseError(err);
}

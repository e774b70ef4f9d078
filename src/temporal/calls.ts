import type { Client, Connection } from '@temporalio/client';

/** A call to Temporal that took too long: the server counts as unreachable. */
export class TemporalTimeoutError extends Error {
  override name = 'TemporalTimeoutError';
  /** gRPC DEADLINE_EXCEEDED, so it is classified like the SDK's own time-outs */
  readonly code = 4;
}

const DEFAULT_LIMIT_MS = 15_000;

/**
 * Runs one call on the app's client with a time limit. The SDK keeps per-call context in
 * an AsyncLocalStorage that, on Node 20, turns promise hooks on for the whole process
 * once used (its lazy connect uses it); they are turned off again after each call, so
 * request handling does not pay for them.
 */
export async function temporalCall<T>(
  client: Client,
  call: () => Promise<T>,
  limitMs = DEFAULT_LIMIT_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      call(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new TemporalTimeoutError(`Temporal did not answer within ${limitMs} ms`)),
          limitMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    (client.connection as Partial<Connection>).callContextStorage?.disable();
  }
}

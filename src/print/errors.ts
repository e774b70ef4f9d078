import type { ItemFailure } from '../domain/order/events.ts';

export type RenderFailure = Exclude<ItemFailure, 'unknown'>;

/** The design cannot be printed as it is: rendering again will not help. */
export class RenderError extends Error {
  override name = 'RenderError';
  constructor(
    message: string,
    readonly kind: RenderFailure = 'layout',
  ) {
    super(message);
  }
}

/** An image a client sent cannot be printed; the message says why in plain words. */
export class ImageProblem extends Error {
  override name = 'ImageProblem';
}

/** What crosses a process boundary of an error: enough to make it again on the other side. */
export interface ErrorRecord {
  name: string;
  message: string;
  kind?: RenderFailure | undefined;
}

export const recordOf = (err: unknown): ErrorRecord => {
  const e = err instanceof Error ? err : new Error(String(err));
  return {
    name: e.name,
    message: e.message,
    ...(e instanceof RenderError ? { kind: e.kind } : {}),
  };
};

/** Any other error of a job in another process (a library's, a bug): its message, as it was. */
export class JobFailedError extends Error {
  override name = 'JobFailedError';
  constructor(
    message: string,
    /** the error's own name over there */
    readonly original: string,
  ) {
    super(message);
  }
}

export function errorOf(r: ErrorRecord): Error {
  if (r.name === 'RenderError') return new RenderError(r.message, r.kind);
  if (r.name === 'ImageProblem') return new ImageProblem(r.message);
  return new JobFailedError(r.message, r.name);
}

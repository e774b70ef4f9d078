import { DomainError } from '../domain/shared/decider.ts';
import { ImageProblem, JobFailedError } from '../print/errors.ts';
import { JobCrashedError, JobDeadlineError } from '../print/process-pool.ts';

/** What an image check's failure says to the client: plain words, naming the layer. */
export function imageFailure(err: unknown, field: string, name: string, code: string): Error {
  const invalid = (f: string, message: string) =>
    new DomainError('invalid', message, code, { field: f });
  if (err instanceof ImageProblem) return invalid(field, `${name}: ${err.message}`);
  if (err instanceof JobDeadlineError)
    return invalid(
      field,
      `${name}: the image took longer than ${err.seconds} s to check; an image this costly to draw cannot be printed (simplify it, or send it as a PNG or JPEG)`,
    );
  if (err instanceof JobCrashedError)
    return invalid(
      field,
      `${name}: the image could not be checked: drawing it needed more memory than an image may take`,
    );
  if (err instanceof JobFailedError)
    return invalid(field, `${name}: the image cannot be read (the file is damaged)`);
  return err as Error;
}

import type { ProjectionRunner } from '#projections/projection-runner';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { ReadModels } from './context.ts';

/**
 * Waits (at most 10 s: on a loaded machine a projection once took more than 3 s, and a
 * create answered 404 for what it had just made) until a projection has taken an append,
 * so the caller can read its write; then drops this process's cached reads of that read model,
 * which the projector's own notice could otherwise reach after the caller's next read.
 */
export function readYourWrites(runner: ProjectionRunner, feed: ChangeFeed): ReadModels {
  return {
    async seen(projection, position, lastType) {
      if (!position) return true;
      const seen = await runner.waitFor(projection, position, 10_000, {
        readsOnly: true,
        ...(lastType ? { lastType } : {}),
      });
      feed.publish({ kind: 'readModel', projection, phase: 'seen' });
      return seen;
    },
  };
}

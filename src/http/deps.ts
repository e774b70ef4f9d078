import type pg from 'pg';
import type { ProjectionRunner } from '../../projections/runner.ts';
import type { AuthThrottle } from '../app/auth-throttle.ts';
import type { StreamStateCache } from '../app/stream-state-cache.ts';
import type { Runners } from '../app/subscriptions.ts';
import type { Config } from '../config.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { EventStore, Position } from '../eventstore/port.ts';
import type { ReadinessCheck } from '../health/readiness.ts';
import type { FileStorage } from '../storage/port.ts';

/** What route plugins need; built by the composition root (src/app/). */
export interface HttpDeps {
  config: Config;
  store: EventStore;
  pool: pg.Pool;
  runner: ProjectionRunner;
  /** projections and reactors, for their status and parked events */
  runners: Runners;
  /** what changed, for caches */
  feed: ChangeFeed;
  /** API key owners' states; absent when the event store's appends are not on the feed */
  principals: StreamStateCache | undefined;
  readiness: ReadinessCheck[];
  /** limits on signup, login and forgot password, shared by every instance */
  throttle: AuthThrottle;
  storage: FileStorage;
  images: FileStorage;
}

/**
 * Waits (bounded) until a projection has seen an append, so the caller can read its
 * write; and drops this process's cached reads of it, which the projector's own
 * notice could otherwise reach after the caller's next read.
 */
export async function readYourWrite(
  deps: HttpDeps,
  projection: string,
  position: Position | undefined,
) {
  if (!position) return;
  await deps.runner.waitFor(projection, position, 3000);
  deps.feed.publish({ kind: 'readModel', projection, phase: 'seen' });
}

import type { AuthThrottle } from '../app/auth-throttle.ts';
import type { AppContext } from '../app/context.ts';
import type { StreamStateCache } from '../app/stream-state-cache.ts';
import type { Runners } from '../app/subscriptions.ts';
import type { Config } from '../config.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { ReadinessCheck } from '../health/readiness.ts';

/** What route plugins need; built by the composition root (src/bootstrap/). */
export interface HttpDeps {
  config: Config;
  /** the use cases' context: every route calls an application function with it */
  app: AppContext;
  /** projections and reactors, for their status and parked events */
  runners: Runners;
  /** what changed, for caches */
  feed: ChangeFeed;
  /** API key owners' states; absent when the event store's appends are not on the feed */
  principals: StreamStateCache | undefined;
  readiness: ReadinessCheck[];
  /** limits on signup, login and forgot password, shared by every instance */
  throttle: AuthThrottle;
}

import type { AuthThrottle } from '../app/auth-throttle.ts';
import type { AppContext } from '../app/context.ts';
import type { StreamStateCache } from '../app/stream-state-cache.ts';
import type { Runners } from '../app/subscriptions.ts';
import type { Config } from '../config.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { ReadinessCheck } from '../health/readiness.ts';
import type { LabelDoor } from '../shares/door.ts';
import type { Poller } from '../temporal/pollers.ts';
import type { MetricsRouteOptions } from './routes/system/metrics.ts';

/** What route plugins need; built by the composition root (src/bootstrap/). */
export interface HttpDeps {
  config: Config;
  /** the use cases' context: every route calls an application function with it */
  app: AppContext;
  /** projections and reactors, for their status and parked events */
  runners: Runners;
  /** what changed, for caches */
  feed: ChangeFeed;
  /**
   * whether the appends that change orders are told on this process's feed: the
   * PostgreSQL event store, and the worker (which records print files) in this process
   */
  appendsOnFeed: boolean;
  /** API key owners' states; absent when the event store's appends are not on the feed */
  principals: StreamStateCache | undefined;
  readiness: ReadinessCheck[];
  /** where every request with a label is charged to that label's share */
  door: LabelDoor;
  /** limits on signup, login and forgot password, shared by every instance */
  throttle: AuthThrottle;
  /** this process's metrics and who may read them */
  metrics: MetricsRouteOptions;
  /** the workers polling the task queue, where there is a Temporal client */
  pollers: (() => Promise<Poller[]>) | undefined;
  /** Temporal's web UI, where the ops page links each order's workflow */
  temporalUiUrl: string | undefined;
}

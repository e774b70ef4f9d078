import type { Client } from '@temporalio/client';
import type pg from 'pg';
import type { ProjectionRunner } from '../../projections/runner.ts';
import type { LoginGuard } from '../app/login-guard.ts';
import type { StreamStateCache } from '../app/stream-state-cache.ts';
import type { Config } from '../config.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import type { EventStore, Position } from '../eventstore/port.ts';
import type { FileStorage } from '../storage/port.ts';
import { HttpProblem } from './problem.ts';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** What route plugins need; built by the composition root (src/app/). */
export interface HttpDeps {
  config: Config;
  store: EventStore;
  pool: pg.Pool;
  runner: ProjectionRunner;
  /** what changed, for caches */
  feed: ChangeFeed;
  /** API key owners' states; absent when the event store's appends are not on the feed */
  principals: StreamStateCache | undefined;
  readiness: ReadinessCheck[];
  loginGuard: LoginGuard;
  storage: FileStorage;
  images: FileStorage;
  /** absent in roles without a Temporal client */
  temporal: { client: Client; taskQueue: string } | undefined;
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

/** Starts a workflow whose id derives from a business id, so a second start collapses onto it. */
export async function startWorkflow(
  deps: HttpDeps,
  workflow: string,
  workflowId: string,
  args: unknown[],
) {
  if (!deps.temporal)
    throw new HttpProblem(
      503,
      'workflows_unavailable',
      'workflows are not reachable from this process',
    );
  try {
    await deps.temporal.client.workflow.start(workflow, {
      taskQueue: deps.temporal.taskQueue,
      workflowId,
      args,
      // a business id runs once, even after its workflow finished
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (err) {
    if ((err as Error).name === 'WorkflowExecutionAlreadyStartedError') return;
    throw new HttpProblem(
      503,
      'workflows_unavailable',
      'the workflow service did not accept the work; retry',
    );
  }
}

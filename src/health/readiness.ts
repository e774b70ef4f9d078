import type { Client } from '@temporalio/client';
import type pg from 'pg';
import type { EventStore } from '../eventstore/port.ts';
import type { FileStorage } from '../storage/port.ts';
import type { Subscriber, SubscriptionRunner } from '../subscriptions/subscription-runner.ts';
import { temporalCall } from '../temporal/calls.ts';
import { taskQueuePollers } from '../temporal/pollers.ts';
import type { SupervisedWorker } from '../temporal/worker.ts';
import type { WebhookDispatcher } from '../webhooks/delivery/dispatcher.ts';

/** A readiness check fails with a NotReady whose message is safe to show. */
export class NotReady extends Error {
  override name = 'NotReady';
}

export interface ReadinessCheck {
  name: string;
  /** resolves when ready; rejects with NotReady (or any error, shown by its class only) */
  check(): Promise<void>;
}

export interface ReadinessResult {
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string }>;
}

const LIMIT_MS = 2000;

function limited<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      // the refusal waits for the loop's next turn past its I/O: after the process was
      // kept off a core for a while, timers run before the answers that came meanwhile,
      // and an answer in time was reported as none
      timer = setTimeout(
        () => setImmediate(() => reject(new NotReady(`no answer within ${ms} ms`))),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Runs every check at once, each within its time limit. */
export async function evaluate(checks: ReadinessCheck[]): Promise<ReadinessResult> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await limited(c.check(), LIMIT_MS);
        return [c.name, { ok: true }] as const;
      } catch (err) {
        // our own reasons are shown; other errors by class only (messages can carry addresses)
        const error =
          err instanceof NotReady ? err.message : err instanceof Error ? err.name : 'error';
        return [c.name, { ok: false, error }] as const;
      }
    }),
  );
  return { ready: results.every(([, r]) => r.ok), checks: Object.fromEntries(results) };
}

const codeOf = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' || typeof code === 'number' ? ` (${code})` : '';
};

export const databaseCheck = (pool: pg.Pool): ReadinessCheck => ({
  name: 'database',
  async check() {
    try {
      await pool.query('SELECT 1');
    } catch (err) {
      throw new NotReady(`the database does not answer${codeOf(err)}`);
    }
  },
});

/** Print files and images can be read and written: the API serves them, the worker writes them. */
export const storageCheck = (stores: FileStorage[]): ReadinessCheck => ({
  name: 'storage',
  async check() {
    try {
      await Promise.all(stores.map((s) => s.ping()));
    } catch (err) {
      throw new NotReady(`the file storage does not answer${codeOf(err)}`);
    }
  },
});

export const eventStoreCheck = (store: EventStore): ReadinessCheck => ({
  name: 'eventStore',
  async check() {
    try {
      await store.ping();
    } catch (err) {
      throw new NotReady(`the event store does not answer${codeOf(err)}`);
    }
  },
});

/** Subscribers this process runs that cannot advance, and any too far behind the log. */
export const subscriptionsCheck = <S extends Subscriber>(
  name: string,
  runner: SubscriptionRunner<S>,
  maxLagMs: number,
): ReadinessCheck => ({
  name,
  async check() {
    const problems = await runner.problems(maxLagMs);
    if (problems.length > 0) throw new NotReady(problems.join('; '));
  },
});

export const temporalCheck = (client: Client): ReadinessCheck => ({
  name: 'temporal',
  async check() {
    try {
      await temporalCall(client, () => client.workflowService.getSystemInfo({}), LIMIT_MS);
    } catch {
      throw new NotReady('Temporal does not answer');
    }
  },
});

export const workerCheck = (worker: SupervisedWorker): ReadinessCheck => ({
  name: 'worker',
  async check() {
    const s = worker.state();
    if (!s.running) throw new NotReady(`this process's worker is not polling: ${s.detail}`);
  },
});

/** This process's webhook dispatcher can read its queue (its last round did not fail). */
export const webhooksCheck = (webhooks: Pick<WebhookDispatcher, 'lastError'>): ReadinessCheck => ({
  name: 'webhooks',
  async check() {
    if (webhooks.lastError)
      throw new NotReady(`webhook deliveries are not being sent: ${webhooks.lastError}`);
  },
});

/** Some worker, in any process, polls the task queue: otherwise recorded work waits. */
export const pollersCheck = (
  client: Client,
  namespace: string,
  taskQueue: string,
): ReadinessCheck => ({
  name: 'workers',
  async check() {
    const recent = await taskQueuePollers(client, namespace, taskQueue, LIMIT_MS).catch(() => {
      throw new NotReady('Temporal does not answer');
    });
    if (recent.length === 0) throw new NotReady(`no worker polls the task queue ${taskQueue}`);
  },
});

import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type pg from 'pg';
import type { Logger } from 'pino';
import { unfinishedOrders } from '#projections/orders';
import { loadOrderState } from '../app/orders.ts';
import type { EventStore } from '../eventstore/port.ts';
import { every } from '../processes.ts';
import { describeError } from '../subscriptions/parked.ts';
import { temporalCall } from '../temporal/calls.ts';
import { workflowIds } from '../temporal/contract.ts';
import type { WorkflowStarts } from '../temporal/workflow-starts.ts';

export interface ReconcilerDeps {
  pool: pg.Pool;
  store: EventStore;
  client: Client;
  starts: WorkflowStarts;
}

/** An unfinished order younger than this is left to the reactor that starts it. */
const SETTLE_MS = 30_000;
const BATCH = 200;

type WorkflowState = 'running' | 'closed' | 'missing';

async function workflowState(client: Client, workflowId: string): Promise<WorkflowState> {
  try {
    const d = await temporalCall(client, () => client.workflow.getHandle(workflowId).describe());
    return d.status.name === 'RUNNING' ? 'running' : 'closed';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'missing';
    throw err;
  }
}

/**
 * Compares unfinished orders with their workflows and starts again what has none
 * running: a workflow that was never started, terminated by hand, lost with a Temporal
 * server's data, or that ended without finishing the order. The order's own stream has
 * the last word (the read model may lag). Returns the orders it started.
 */
export async function reconcileOrders(deps: ReconcilerDeps, log: Logger): Promise<string[]> {
  const started: string[] = [];
  for (const row of await unfinishedOrders(deps.pool, SETTLE_MS, BATCH)) {
    const id = workflowIds.order(row.label_id, row.order_id);
    const state = await workflowState(deps.client, id);
    if (state === 'running') continue;
    const order = await loadOrderState(deps.store, row.stream_id);
    if (!order.exists || (order.status !== 'received' && order.status !== 'rendering')) continue;
    const outcome = await deps.starts.order(row.label_id, row.order_id, row.stream_id, {
      evenAfterCompletion: state === 'closed',
    });
    if (outcome === 'started') {
      started.push(row.order_id);
      log.warn(
        { orderId: row.order_id, labelId: row.label_id, workflow: state },
        'order had no running workflow; started it again',
      );
    }
  }
  return started;
}

/**
 * Runs the reconciliation now and every `intervalMs`; a failed round is logged and retried next
 * time.
 */
export function scheduleReconciler(deps: ReconcilerDeps, intervalMs: number, log: Logger) {
  return every(
    intervalMs,
    () => reconcileOrders(deps, log),
    (err) => log.warn({ error: describeError(err) }, 'order reconciliation failed'),
  );
}

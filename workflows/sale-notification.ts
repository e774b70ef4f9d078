import {
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities, OrderOutcome } from '../src/temporal/contract.ts';
import { ORDER_ID, ORDER_STATUS } from '../src/temporal/contract.ts';
import { BOOKKEEPING, RENDERING, RENDERING_LOCALLY } from './policies.ts';

const remote = proxyActivities<Activities>(RENDERING);
const local = proxyLocalActivities<Activities>(BOOKKEEPING);
const renderedLocally = proxyLocalActivities<Activities>(RENDERING_LOCALLY);

const PARALLEL_ITEMS = 2;
const LOCAL_BOOKKEEPING = 'bookkeeping-as-local-activities';
const LOCAL_RENDERS = 'renders-as-local-activities';

/**
 * The order's status as a search attribute, where the workflow was started with them
 * and it says otherwise (a new order's workflow starts as 'rendering').
 */
function showStatus(status: string): void {
  const shown = workflowInfo().typedSearchAttributes;
  if (shown.get(ORDER_ID) === undefined || shown.get(ORDER_STATUS) === status) return;
  upsertSearchAttributes([{ key: ORDER_STATUS, value: status }]);
}

/**
 * A sale notification becomes print files: every pending item is rendered (two at a
 * time, as local activities: RENDERING_LOCALLY says why), then the order is marked ready,
 * or failed with the reasons of the items that could not be rendered once all the others
 * are done. A cancelled order's workflow is cancelled, and a render still running is
 * recorded by nobody (the order refuses print files once cancelled). The cancellation
 * reaches the workflow when its task ends: after the renders under way, or at the task's
 * heartbeat (8 s) while they wait for a render slot.
 *
 * Started with the order's items (a new order): its renders start the order's rendering
 * and the last one completes the order in its own append, so the order is ready when its
 * last file is recorded, not a workflow task later; the workflow completes the order
 * itself only when no render did (items settled before it ran). Started without them (a
 * retry, the reconciler, histories from before): a step reads the pending items first.
 */
export async function saleNotificationWorkflow(
  orderStream: string,
  items?: string[],
): Promise<{ status: string; reason?: string }> {
  // workflows started before the bookkeeping steps became local activities replay as
  // they ran (their histories hold scheduled activities); asked where a step is taken,
  // so a run whose renders complete the order records no marker
  const bookkeeping = () => (patched(LOCAL_BOOKKEEPING) ? local : remote);
  try {
    const pending = items ?? (await bookkeeping().startRendering(orderStream));
    showStatus('rendering');
    // histories from before renders became local activities hold scheduled ones; asked
    // once, before the first render, so both of a run's render loops take the same way
    const renders = pending.length > 0 && patched(LOCAL_RENDERS) ? renderedLocally : remote;
    let next = 0;
    let completed: OrderOutcome | undefined;
    await Promise.all(
      Array.from({ length: Math.min(PARALLEL_ITEMS, pending.length) }, async () => {
        while (next < pending.length) {
          const item = pending[next++]!;
          if (!items) await renders.renderOrderItem(orderStream, item);
          else completed = (await renders.printOrderItem(orderStream, item)).order ?? completed;
        }
      }),
    );
    const done = completed ?? (await bookkeeping().completeOrder(orderStream));
    showStatus(done.status);
    return done;
  } catch (err) {
    // cancelled because the order was (OrderCancelled): the order's events say so already
    if (isCancellation(err)) showStatus('cancelled');
    throw err;
  }
}

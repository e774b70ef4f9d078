import {
  type Client,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
} from '@temporalio/client';
import {
  barcodeRegenerationWorkflow,
  batchReleaseWorkflow,
  batchReplayWorkflow,
  batchSheetPrintedWorkflow,
  importWorkflow,
  impositionWorkflow,
  replayWorkflow,
  reprintWorkflow,
  revisionWorkflow,
  saleNotificationWorkflow,
} from '../../workflows/index.ts';
import { temporalCall } from './calls.ts';
import { LABEL_ID, ORDER_ID, ORDER_STATUS, workflowIds } from './contract.ts';

export type Started = 'started' | 'already';

/**
 * Starts the app's workflows, typed by their function references. Each start is
 * idempotent by its workflow id: a second start of running or finished work answers
 * `already`. Only the reactions over the event log (and the reconciler) call these.
 */
const RUN_FINISH_WAIT_MS = 10_000;

/** A workflow is still running where a new run must start; counts as a passing outage. */
export class TemporalBusy extends Error {
  override name = 'TemporalBusy';
  /** gRPC UNAVAILABLE: the reactor retries with back-off and never parks the event */
  readonly code = 14;
}

export class WorkflowStarts {
  /** the client of a worker of the task queue in this process, while it runs */
  private local: () => Client | undefined = () => undefined;
  private observeStart: (firstTask: 'handed_over' | 'queued') => void = () => {};

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    /** told when the server lacks the search attributes (the workflow starts without them) */
    private readonly onMissingSearchAttributes?: (err: Error) => void,
  ) {}

  /**
   * Where this process runs a worker of the task queue: a new order's workflow is started
   * through that worker's connection, and the server hands the workflow's first task to
   * it in the start's answer instead of through the task queue (one poll and one
   * matching fewer between a sale and its first render).
   */
  startOn(
    local: () => Client | undefined,
    observe?: (firstTask: 'handed_over' | 'queued') => void,
  ): void {
    this.local = local;
    if (observe) this.observeStart = observe;
  }

  /**
   * An order's print workflow. Started anew when an earlier run failed or was ended by
   * hand; after one that completed only with `evenAfterCompletion` (the reconciler,
   * which has read in the order's stream that the order is not finished).
   */
  order(
    labelId: string,
    orderId: string,
    orderStream: string,
    options: { evenAfterCompletion?: boolean; items?: string[] } = {},
  ): Promise<Started> {
    const local = this.local();
    const start = async (findable: boolean, client = local ?? this.client) => {
      const handle = await client.workflow.start(saleNotificationWorkflow, {
        taskQueue: this.taskQueue,
        requestEagerStart: client === local,
        workflowId: workflowIds.order(labelId, orderId),
        args: options.items ? [orderStream, options.items] : [orderStream],
        workflowIdReusePolicy: options.evenAfterCompletion
          ? 'ALLOW_DUPLICATE'
          : 'ALLOW_DUPLICATE_FAILED_ONLY',
        staticSummary: `Order ${orderId}`,
        staticDetails: `label ${labelId}, order stream ${orderStream}`,
        ...(findable
          ? {
              typedSearchAttributes: [
                { key: ORDER_ID, value: orderId },
                { key: LABEL_ID, value: labelId },
                // a new order's first workflow task starts its renders: shown from the
                // start, not by an update of the search attribute one task later
                { key: ORDER_STATUS, value: options.items ? 'rendering' : 'received' },
              ],
            }
          : {}),
      });
      this.observeStart(handle.eagerlyStarted ? 'handed_over' : 'queued');
      return handle;
    };
    return this.once(async () => {
      try {
        return await start(true);
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) throw err;
        // a server without the search attributes registered still runs the work
        if (/search attribute/i.test(String((err as Error).message))) {
          this.onMissingSearchAttributes?.(err as Error);
          return start(false);
        }
        // the local worker's connection closing (the worker made again): the app's own
        // client starts it the usual way; a start that did reach the server answers `already`
        if (local) return start(true, this.client);
        throw err;
      }
    });
  }

  /**
   * Runs an order's workflow again for a retry. The run that recorded the failure may
   * still be finishing (its last step appends the event, then it returns): that run is
   * waited for, briefly, and the retry starts after it. A run that does not finish in
   * time makes this throw, and the reactor tries again after its back-off.
   */
  async retryOrder(labelId: string, orderId: string, orderStream: string): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (
        (await this.order(labelId, orderId, orderStream, { evenAfterCompletion: true })) ===
        'started'
      )
        return;
      const handle = this.client.workflow.getHandle(workflowIds.order(labelId, orderId));
      await Promise.race([
        handle.result().catch(() => undefined),
        new Promise((r) => setTimeout(r, RUN_FINISH_WAIT_MS)),
      ]);
    }
    throw new TemporalBusy(`the order workflow of ${orderId} is still running; retry later`);
  }

  /** Cancels an order's workflow; one that is gone or finished needs nothing. */
  async cancelOrder(labelId: string, orderId: string): Promise<void> {
    try {
      await temporalCall(this.client, () =>
        this.client.workflow.getHandle(workflowIds.order(labelId, orderId)).cancel(),
      );
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return;
      throw err;
    }
  }

  barcode(orderStream: string, orderItemId: string, version: number): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(barcodeRegenerationWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.barcode(orderItemId, version),
        args: [orderStream, orderItemId, version],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  revision(orderStream: string, orderItemId: string, version: number): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(revisionWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.revision(orderItemId, version),
        args: [orderStream, orderItemId, version],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  replay(orderStream: string, replayId: string): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(replayWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.replay(replayId),
        args: [orderStream, replayId],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  reprint(orderStream: string, reprintId: string, orderItemId: string): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(reprintWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.reprint(reprintId),
        args: [orderStream, reprintId, orderItemId],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  import(importId: string): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(importWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.import(importId),
        args: [importId],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      }),
    );
  }

  /** A press run's imposition; a failed run may start again (the reconciler's retry). */
  imposition(batchId: string): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(impositionWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.imposition(batchId),
        args: [batchId],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        staticSummary: `Press run ${batchId}`,
      }),
    );
  }

  batchReplay(batchId: string, replayId: string): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(batchReplayWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.batchReplay(replayId),
        args: [batchId, replayId],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  }

  batchSheetPrinted(batchId: string, n: number): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(batchSheetPrintedWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.batchSheetPrinted(batchId, n),
        args: [batchId, n],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      }),
    );
  }

  batchRelease(batchId: string): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(batchReleaseWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.batchRelease(batchId),
        args: [batchId],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      }),
    );
  }

  private async once(start: () => Promise<unknown>): Promise<Started> {
    try {
      await temporalCall(this.client, start);
      return 'started';
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already';
      throw err;
    }
  }
}

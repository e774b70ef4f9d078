import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import {
  barcodeRegenerationWorkflow,
  importWorkflow,
  replayWorkflow,
  saleNotificationWorkflow,
} from '../../workflows/index.ts';
import { temporalCall } from './calls.ts';
import { workflowIds } from './workflow-ids.ts';

export type Started = 'started' | 'already';

/**
 * Starts the app's workflows, typed by their function references. Each start is
 * idempotent by its workflow id: a second start of running or finished work answers
 * `already`. Only the reactions over the event log (and the reconciler) call these.
 */
export class WorkflowStarts {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /**
   * An order's print workflow. Started anew when an earlier run failed or was ended by
   * hand; after one that completed only with `evenAfterCompletion` (the reconciler,
   * which has read in the order's stream that the order is not finished).
   */
  order(
    labelId: string,
    orderId: string,
    orderStream: string,
    options: { evenAfterCompletion?: boolean } = {},
  ): Promise<Started> {
    return this.once(() =>
      this.client.workflow.start(saleNotificationWorkflow, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.order(labelId, orderId),
        args: [orderStream],
        workflowIdReusePolicy: options.evenAfterCompletion
          ? 'ALLOW_DUPLICATE'
          : 'ALLOW_DUPLICATE_FAILED_ONLY',
      }),
    );
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

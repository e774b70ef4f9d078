import type { ActivityOptions } from '@temporalio/workflow';

/** Errors that retrying cannot fix. */
export const PERMANENT = ['RenderError', 'OrderNotFound', 'OrderItemNotFound'];

/** Rendering a print file: heartbeats per layer, so a worker that died is noticed in 20 s. */
export const RENDERING: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
    nonRetryableErrorTypes: PERMANENT,
  },
};

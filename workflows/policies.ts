import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

/** Errors that retrying cannot fix. */
export const PERMANENT = ['RenderError', 'OrderNotFound', 'OrderItemNotFound'];

/**
 * A press run's steps: each heartbeats per item or sheet, so a worker that died is noticed
 * in 20 s; a store or storage away for a while delays them (retried without a cap, at most
 * a minute apart), it never leaves a batch half done.
 */
export const PRESS_RUN: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['BatchNotFound', 'NothingToReplay'],
  },
};

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

/**
 * Short steps that only read and append an order's events (start, complete): run as local
 * activities, in the worker's workflow task, without the server scheduling each one. They
 * are idempotent (derived event ids), so running one again after a crash is harmless.
 */
export const BOOKKEEPING: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: PERMANENT,
  },
};

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

/**
 * Imposing a press run: its work runs in an imposition process with a 10-minute limit,
 * and the activity heartbeats while it waits for it. A failure the same input meets again
 * (a piece too large, the time limit, the process out of memory) fails the batch at once;
 * any other (the store away, the worker gone) is retried, five attempts at most, then the
 * batch fails with the last error, and its items go back to ready.
 */
export const IMPOSING: ActivityOptions = {
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['BatchNotFound'],
  },
};

/**
 * Rendering a print file as an activity the server schedules (barcode regenerations, and
 * sale notifications started before their renders became local activities): heartbeats
 * every 5 s, so a worker that died is noticed in 20 s.
 */
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
 * Rendering an order's print files as local activities, in the workflow task of the worker
 * that runs the order's workflow: no activity task to schedule, start and complete through
 * the server, and no second workflow task to learn of the result (about half of Temporal's
 * CPU per order). The same time limit and retries as RENDERING; the retries run in the
 * worker, and the history's marker records the attempt that settled the item. A worker
 * that died mid-render is noticed when its workflow task times out (10 s), and the render
 * runs again on another: it appends with derived ids, and writes its content-addressed
 * file again at most.
 */
export const RENDERING_LOCALLY: LocalActivityOptions = {
  startToCloseTimeout: RENDERING.startToCloseTimeout,
  retry: RENDERING.retry,
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

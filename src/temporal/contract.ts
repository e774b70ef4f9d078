import { defineSearchAttributeKey } from '@temporalio/common';

/**
 * The Temporal border: what the workflows and the code around them must agree on. The
 * workflows import this file and nothing else of the service; the activities implement
 * `Activities` without knowing a workflow; the starters take ids and search attributes
 * from here. It imports nothing of the service itself, so it stays deterministic for
 * the workflow bundle and below everything that uses it.
 */

// ---- workflow ids ----

/**
 * Every workflow id, in one place. Ids derive from business ids, so a second start of
 * the same work collapses onto the first, and an operator can read in the id what the
 * workflow is about.
 */
export const workflowIds = {
  /** the print workflow of an order: the label and the shop's own order reference */
  order: (labelId: string, orderId: string) => `order:${labelId}:${orderId}`,
  /** one per barcode update of an order item (the version counts its updates and revisions) */
  barcode: (orderItemId: string, version: number) => `barcode:${orderItemId}:v${version}`,
  /** one per revision of an order item (the version counted as the barcode's) */
  revision: (orderItemId: string, version: number) => `revision:${orderItemId}:v${version}`,
  replay: (replayId: string) => `replay:${replayId}`,
  reprint: (reprintId: string) => `reprint:${reprintId}`,
  import: (importId: string) => `import:${importId}`,
  /** a press run's imposition, from its request */
  imposition: (batchId: string) => `batch:${batchId}`,
  batchReplay: (replayId: string) => `batch-replay:${replayId}`,
  batchSheetPrinted: (batchId: string, n: number) => `batch-sheet:${batchId}:${n}`,
  batchRelease: (batchId: string) => `batch-release:${batchId}`,
};

// ---- search attributes ----

/**
 * What an order's workflow can be found by in Temporal's UI and list API. Registered on
 * the embedded dev server at its start and by the worker on a server it is pointed at.
 */
export const ORDER_ID = defineSearchAttributeKey('OrderId', 'KEYWORD');
export const LABEL_ID = defineSearchAttributeKey('LabelId', 'KEYWORD');
export const ORDER_STATUS = defineSearchAttributeKey('OrderStatus', 'KEYWORD');

export const SEARCH_ATTRIBUTES = [ORDER_ID, LABEL_ID, ORDER_STATUS];

// ---- workflow results ----

export type OrderStatus = 'received' | 'rendering' | 'ready' | 'failed' | 'cancelled';

/** An order's print workflow: the order's status at its end, and why when failed. */
export interface OrderWorkflowResult {
  status: string;
  reason?: string;
}

export interface ImportResult {
  created: number;
  skipped: number;
}

// ---- activities ----

export type RenderOutcome =
  | { outcome: 'superseded'; sha256?: undefined; reason?: undefined }
  | { outcome: 'ready' | 'failed'; sha256: string | undefined; reason?: undefined }
  | { outcome: 'failed'; reason: string; sha256?: undefined };

/** an order's outcome once its run is over */
export type OrderOutcome = { status: OrderStatus; reason?: string | undefined };

export interface ItemComparison {
  expected: string;
  actual: string;
  matches: boolean;
}

/**
 * Every activity, as the workflows call it. Arguments and results cross the border as
 * JSON: plain data only.
 */
export interface Activities {
  describeEventStore(): Promise<string>;
  // orders
  startRendering(stream: string): Promise<string[]>;
  renderOrderItem(stream: string, orderItemId: string, version?: number): Promise<RenderOutcome>;
  /** renders an item of its order's run: `order` when this item's append completed the order */
  printOrderItem(
    stream: string,
    orderItemId: string,
  ): Promise<RenderOutcome & { order?: OrderOutcome | undefined }>;
  regenerateBarcode(
    stream: string,
    orderItemId: string,
    version: number,
  ): Promise<{ outcome: 'superseded' | 'regenerated' }>;
  completeOrder(stream: string): Promise<OrderOutcome>;
  replayOrder(
    stream: string,
    replayId: string,
  ): Promise<(ItemComparison & { orderItemId: string })[]>;
  reprintItem(stream: string, reprintId: string, orderItemId: string): Promise<ItemComparison>;
  // imports
  describeImport(
    importId: string,
  ): Promise<{ chunkCount: number; applied: number[]; completed: boolean }>;
  applyImportChunk(importId: string, chunk: number): Promise<ImportResult>;
  completeImport(importId: string): Promise<ImportResult>;
  // press runs
  claimBatchItems(batchId: string): Promise<{ items: number; refused: number }>;
  imposeBatch(batchId: string): Promise<{ status: string; sheets: number }>;
  failImposition(batchId: string, reason: string): Promise<void>;
  deliverBatch(batchId: string): Promise<{ location: string | null }>;
  replayBatch(batchId: string, replayId: string): Promise<{ matches: boolean }>;
  markSheetPrinted(batchId: string, n: number): Promise<{ printed: number; skipped: string[] }>;
  releaseBatchItems(batchId: string): Promise<void>;
}

/** A span made in a workflow, as the sink hands it to the worker. */
export interface WorkflowSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  /** milliseconds since the epoch, by the workflow's clock */
  start: number;
  end: number;
  failed: boolean;
  attributes: Record<string, string>;
}

/** The sink a workflow's spans leave the sandbox by (workflows/tracing.ts). */
export type TracingSinks = {
  tracing: { spanEnded(span: WorkflowSpan): void };
};

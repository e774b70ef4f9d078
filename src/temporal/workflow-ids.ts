/**
 * Every workflow id, in one place. Ids derive from business ids, so a second start of
 * the same work collapses onto the first, and an operator can read in the id what the
 * workflow is about.
 */
export const workflowIds = {
  /** the print workflow of an order: the label and the shop's own order reference */
  order: (labelId: string, orderId: string) => `order:${labelId}:${orderId}`,
  /** one per barcode update of an order item (the version counts the updates) */
  barcode: (orderItemId: string, version: number) => `barcode:${orderItemId}:v${version}`,
  replay: (replayId: string) => `replay:${replayId}`,
  reprint: (reprintId: string) => `reprint:${reprintId}`,
  import: (importId: string) => `import:${importId}`,
  /** a press run's imposition, from its request */
  imposition: (batchId: string) => `batch:${batchId}`,
  batchReplay: (replayId: string) => `batch-replay:${replayId}`,
  batchSheetPrinted: (batchId: string, n: number) => `batch-sheet:${batchId}:${n}`,
  batchRelease: (batchId: string) => `batch-release:${batchId}`,
};

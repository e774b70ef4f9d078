// Every workflow the worker bundles. Workflow code only: deterministic, no I/O.
export { barcodeRegenerationWorkflow } from './barcode-regeneration.ts';
export {
  batchReleaseWorkflow,
  batchReplayWorkflow,
  batchSheetPrintedWorkflow,
} from './batch-floor.ts';
export { importWorkflow } from './import.ts';
export { impositionWorkflow } from './imposition.ts';
export { pingWorkflow } from './ping.ts';
export { replayWorkflow } from './replay.ts';
export { reprintWorkflow } from './reprint.ts';
export { revisionWorkflow } from './revision.ts';
export { saleNotificationWorkflow } from './sale-notification.ts';

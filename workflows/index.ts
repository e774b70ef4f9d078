// Every workflow the worker bundles. Workflow code only: deterministic, no I/O.
export { importWorkflow } from './import.ts';
export { pingWorkflow } from './ping.ts';

// Every workflow the worker bundles. Workflow code only: deterministic, no I/O.
export { pingWorkflow } from './ping.ts';

// The service as a separate process, for tests that kill, stop or restart things under
// it. Configured by the environment like src/main.ts; the role is the first argument.
// With FAULT_STALL_WORKFLOW_STARTS=<kinds> (comma-separated: order, barcode, replay,
// import; or all) each such workflow start the reactor makes stalls forever after
// printing "stalled <kind>" (the moment between the append and the start), so a test
// can kill the process exactly there.
import { createLogger } from '../../src/app/logger.ts';
import { startApp } from '../../src/bootstrap/start.ts';
import { loadConfig, type Role } from '../../src/config.ts';
import type { WorkflowStarts } from '../../src/temporal/workflow-starts.ts';

const role = (process.argv[2] ?? 'all') as Role;
const { config } = loadConfig();
const log = createLogger(config.logLevel);
process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));

const stalled = (process.env.FAULT_STALL_WORKFLOW_STARTS ?? '').split(',').filter(Boolean);
const stall = (starts: WorkflowStarts): WorkflowStarts =>
  new Proxy(starts, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (!stalled.includes('all') && !stalled.includes(String(prop))) return value.bind(target);
      return (...args: unknown[]) => {
        console.log(`stalled ${String(prop)} ${JSON.stringify(args)}`);
        return new Promise(() => {}); // until the process is killed
      };
    },
  });

const app = await startApp(config, role, log, {
  ...(stalled.length > 0 ? { wrapStarts: stall } : {}),
});
console.log(`ready ${app.url ?? app.healthUrl}`);
const stop = async () => {
  await app.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());

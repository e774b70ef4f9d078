#!/usr/bin/env node
// `npm start`: installs what a fresh clone lacks, compiles it when its sources changed,
// then runs the service (all roles by default; pass `-- --role api|worker|projector`).
// SIGINT and SIGTERM to this process, or to the npm that started it, stop the service,
// which stops its servers, its partner simulator and its Temporal dev server before it
// exits.
import { spawn } from 'node:child_process';
import { ensureBuilt, ensureDependencies, ensureTemporalCli, root } from './lib/prepare.mjs';

ensureDependencies();
ensureBuilt();
ensureTemporalCli();
const child = spawn(
  process.execPath,
  ['--conditions=production', 'dist/src/main.js', ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    // glibc gives each thread that allocates an arena of its own (libvips', Temporal's,
    // the worker threads'), and memory freed in one is not reused by another: two are
    // enough for a process whose JavaScript runs on one thread
    env: { MALLOC_ARENA_MAX: '2', ...process.env, EDITOR_PLATFORM_STOP_WITH_PARENT: '1' },
  },
);
const pass = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => pass(signal));
process.on('SIGHUP', () => pass('SIGTERM'));
// npm exits on SIGTERM without passing it on: when the process that started us is gone
// (we were handed to another parent), the service is stopped as if it got SIGTERM
// once: a second SIGTERM stops the service at once, cutting off the requests in flight
const parent = process.ppid;
const orphaned = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(orphaned);
  pass('SIGTERM');
}, 250);
orphaned.unref();
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

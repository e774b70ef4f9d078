#!/usr/bin/env node
// `npm start`: installs what a fresh clone lacks, compiles it when its sources changed,
// then runs the service (all roles by default; pass `-- --role api|worker|projector`) in
// this same process, so nothing of the project's waits beside it. SIGINT and SIGTERM, or
// the end of the npm that started it, stop the service, which stops its servers, its
// partner simulator and its Temporal dev server before it exits.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt, ensureDependencies, ensureTemporalCli, root } from './lib/prepare.mjs';

// What the service needs from its process's start: the compiled read models
// (`#projections/*` under the `production` condition) and, for memory, glibc's arenas at
// two (each thread that allocates gets an arena of its own, and memory freed in one is
// not reused by another). `npm start` starts this process so (package.json); started
// otherwise, it starts itself again so, once.
const ready = process.execArgv.includes('--conditions=production') && process.env.MALLOC_ARENA_MAX;
if (!ready) {
  const child = spawn(
    process.execPath,
    ['--conditions=production', ...process.execArgv, ...process.argv.slice(1)],
    { stdio: 'inherit', env: { MALLOC_ARENA_MAX: '2', ...process.env } },
  );
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
    process.on(signal, () => child.kill(signal === 'SIGHUP' ? 'SIGTERM' : signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  ensureDependencies();
  ensureBuilt();
  ensureTemporalCli();
  // npm ends on SIGTERM without passing it on: when the process that started this one
  // is gone, the service stops as if it got SIGTERM (src/main.ts)
  process.env.EDITOR_PLATFORM_STOP_WITH_PARENT = '1';
  // a terminal that closes stops the service as SIGTERM does
  process.on('SIGHUP', () => process.kill(process.pid, 'SIGTERM'));
  await import(pathToFileURL(path.join(root, 'dist/src/main.js')).href);
}

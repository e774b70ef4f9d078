#!/usr/bin/env node
// `npm start`: installs what a fresh clone lacks, then runs the service (all roles by
// default; pass `-- --role api|worker|projector`).
import { spawn } from 'node:child_process';
import { ensureDependencies, ensureTemporalCli, root } from './lib/prepare.mjs';

ensureDependencies();
ensureTemporalCli();
const child = spawn(
  process.execPath,
  ['--import', 'tsx', 'src/main.ts', ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: process.env,
  },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

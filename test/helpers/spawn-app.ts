import { type ChildProcess, spawn } from 'node:child_process';

export interface AppProcess {
  proc: ChildProcess;
  /** the address it printed when it started (API, or health server) */
  url: string;
  output(): string;
  /** resolves once a line containing `text` was printed */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  alive(): boolean;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts test/helpers/app-process.ts with a role and environment; resolves once it serves. */
export async function spawnApp(
  role: string,
  env: Record<string, string | undefined>,
  timeoutMs = 90_000,
): Promise<AppProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/app-process.ts', role], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const waitFor = async (text: string, limit = timeoutMs) => {
    const deadline = Date.now() + limit;
    while (!out.includes(text)) {
      if (proc.exitCode !== null) throw new Error(`the app exited:\n${out.slice(-3000)}`);
      if (Date.now() > deadline)
        throw new Error(`no "${text}" within ${limit} ms:\n${out.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await waitFor('ready ');
  const url = /ready (\S+)/.exec(out)![1]!;
  return {
    proc,
    url,
    output: () => out,
    waitFor,
    alive: () => proc.exitCode === null && proc.signalCode === null,
    async kill(signal = 'SIGKILL') {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      await exited;
    },
  };
}

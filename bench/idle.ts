// npm run bench:idle
// The embedded default's memory as a user sees it: `npm start` in a fresh data folder,
// `npm run seed:demo` against it (a catalogue and one order rendered), then, once the
// service has been idle for IDLE_SECONDS (90 unless set: past the minute after which an idle image
// process ends), the resident memory of every process `npm start` left running, by kind: the
// service's own (the main process and its image processes), the embedded Temporal dev server, and
// what waits beside them (`npm` and the shell it runs its script in). A baseline in the same run: a
// Node process that only waits.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, portFree } from '../src/db/database.ts';
import { figure } from './lib/figures.ts';
import { waitFor } from './lib/stack.ts';
import { descendants, rssMiB } from './lib/tree-memory.ts';

const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 90);
const root = fileURLToPath(new URL('..', import.meta.url));

/** Two free ports in a row: the service's and its partner simulator's (the next one). */
async function servicePorts(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (await portFree(port + 1)) return port;
  }
}

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
};

/** What a process of the tree is, for the table. */
function kindOf(pid: number, start: number): string {
  const cmd = cmdline(pid);
  if (pid === start) return 'npm';
  // npm runs its script through the shell
  if (cmd.startsWith('sh ')) return 'sh';
  // the service runs in scripts/start.mjs's own process
  if (cmd.includes('scripts/start.mjs') || cmd.includes('dist/src/main.js')) return 'main process';
  if (cmd.includes('start-dev')) return 'Temporal dev server';
  if (cmd.includes('node')) return 'image process';
  return cmd.split(' ')[0] ?? String(pid);
}

/**
 * A process's resident memory by mapping (a file's name, or what the kernel calls it), largest
 * first.
 */
function largestMappings(pid: number, n = 10): string {
  const byName = new Map<string, number>();
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) name = path.basename(head[1] || '[anonymous]');
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) byName.set(name, (byName.get(name) ?? 0) + Number(rss[1]) / 1024);
  }
  return [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(', ');
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-idle-'));
  const port = await servicePorts();
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    TEMPORAL_UI_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  };
  const base = `http://127.0.0.1:${port}`;
  // the baseline: what a Node process that does nothing holds
  const waiting = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    stdio: 'ignore',
  });
  const service = spawn('npm', ['start'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  service.stderr?.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString()).slice(-4000);
  });
  try {
    // a fresh clone compiles before it starts: ten minutes, not the stack's one
    await waitFor(`${base}/readyz`, service, 600_000);
    const seeded = spawnSync('npm', ['run', 'seed:demo'], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    if (seeded.status !== 0)
      throw new Error(`seed:demo ended with ${seeded.status}: ${seeded.stderr.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const byKind = new Map<string, number[]>();
    for (const pid of descendants(service.pid!)) {
      const kind = kindOf(pid, service.pid!);
      byKind.set(kind, [...(byKind.get(kind) ?? []), rssMiB(pid)]);
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const of = (kind: string) => sum(byKind.get(kind) ?? []);
    const own = of('main process') + of('image process');
    const beside = of('npm') + of('sh');
    const total = sum([...byKind.values()].flat());
    console.log(
      `\nThe embedded default, idle ${IDLE_SECONDS} s after seed:demo (resident memory, MiB)\n`,
    );
    console.log('| process | count | MiB |');
    console.log('|---|---:|---:|');
    for (const [kind, sizes] of byKind)
      console.log(
        `| ${kind} | ${sizes.length} | ${sizes.map((s) => s.toFixed(0)).join(' + ')} = ${sum(sizes).toFixed(0)} |`,
      );
    console.log(
      `| everything npm start left running | ${descendants(service.pid!).length} | ${total.toFixed(0)} |`,
    );
    console.log(`| the service's own (main + image processes) | | ${own.toFixed(0)} |`);
    console.log(`| waiting beside it (npm and its shell) | | ${beside.toFixed(0)} |`);
    console.log(
      `| baseline: a Node process that only waits | 1 | ${rssMiB(waiting.pid!).toFixed(0)} |`,
    );
    // where the main process's memory is, as its own /metrics says (prom-client's defaults)
    const metrics = await fetch(`${base}/metrics`, {
      headers: { 'x-api-key': readFileSync(path.join(dataDir, 'operator-api-key'), 'utf8').trim() },
    }).then((r) => r.text());
    const mib = (name: string) =>
      Number(new RegExp(`^editor_platform_${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN) /
      2 ** 20;
    const heap = mib('nodejs_heap_size_total_bytes');
    const external = mib('nodejs_external_memory_bytes');
    console.log(
      `\nthe main process by its own account: resident ${mib('process_resident_memory_bytes').toFixed(0)} MiB; V8 heap ${heap.toFixed(0)} MiB (${mib('nodejs_heap_size_used_bytes').toFixed(0)} used); external to the heap (buffers, WebAssembly memory such as the embedded database's) ${external.toFixed(0)} MiB; the rest (code, threads' stacks, native libraries' own memory: libvips, Temporal's core) ${(mib('process_resident_memory_bytes') - heap - external).toFixed(0)} MiB`,
    );
    // and by its mappings: which libraries' code and data, and how much anonymous memory
    const main = descendants(service.pid!).find(
      (pid) => kindOf(pid, service.pid!) === 'main process',
    );
    if (main) console.log(`its largest mappings (resident MiB): ${largestMappings(main)}`);
    figure('idle.service_mib', own);
    figure('idle.beside_mib', beside);
    figure('idle.total_mib', total);
  } catch (err) {
    console.error(stderr);
    throw err;
  } finally {
    waiting.kill();
    service.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

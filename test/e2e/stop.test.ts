import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/database.ts';
import { processAlive } from '../../src/processes.ts';
import { until } from '../helpers/orders.ts';

/** Every process below `pid`, read from /proc (pid, parent, command line). */
function descendants(pid: number): { pid: number; cmd: string }[] {
  const parents = new Map<number, number[]>();
  const cmds = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
      cmds.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '));
    } catch {
      // the process ended while we looked
    }
  }
  const out: { pid: number; cmd: string }[] = [];
  const walk = (p: number) => {
    for (const c of parents.get(p) ?? []) {
      out.push({ pid: c, cmd: cmds.get(c) ?? '' });
      walk(c);
    }
  };
  walk(pid);
  return out;
}

describe('npm start, stopped', () => {
  it('by SIGTERM to npm: the service, its partner simulator and its Temporal dev server all end', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'stop-'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
    };
    for (const k of ['DATABASE_URL', 'EVENTSTORE_URL', 'TEMPORAL_ADDRESS', 'OPERATOR_API_KEY'])
      delete env[k];
    const npm = spawn('npm', ['start', '--silent'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout!.on('data', (d) => (out += d));
    npm.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => npm.once('exit', (code) => r(code)));
    try {
      await until(
        'the embedded service to be ready',
        async () => {
          if (npm.exitCode !== null) throw new Error(out);
          const r = await fetch(`http://127.0.0.1:${port}/readyz`);
          return r.status === 200 ? true : undefined;
        },
        120_000,
        250,
      );
    } catch (err) {
      // the whole tree: the service killed with npm alone would outlive the test
      for (const p of [...descendants(npm.pid!)].reverse()) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {}
      }
      npm.kill('SIGKILL');
      throw new Error(`${(err as Error).message}\n${out.slice(-3000)}`);
    }
    const tree = descendants(npm.pid!);
    // the service runs in the process of scripts/start.mjs: no process of the project's
    // waits beside it (npm and its shell are npm's)
    expect(
      tree.filter(
        (p) =>
          !p.cmd.startsWith('sh ') &&
          (p.cmd.includes('scripts/start.mjs') || p.cmd.includes('dist/src/main.js')),
      ),
    ).toHaveLength(1);
    expect(tree.some((p) => p.cmd.includes('start-dev'))).toBe(true);
    // a request in flight when the signal comes is still answered by its handler. In
    // flight for certain: the server has taken its headers (it sent 100 Continue) and
    // waits for its body, which is sent only once the server refuses new connections
    const operatorKey = readFileSync(path.join(dataDir, 'operator-api-key'), 'utf8').trim();
    const body = JSON.stringify({ name: 'Answered while stopping' });
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/operator/labels',
      headers: {
        'x-api-key': operatorKey,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
    });
    await new Promise<void>((resolve) => req.once('continue', resolve));
    npm.kill('SIGTERM');
    await until(
      'the server to refuse new connections',
      () =>
        fetch(`http://127.0.0.1:${port}/livez`).then(
          () => undefined,
          () => true,
        ),
      45_000,
      50,
    );
    // a second later still: the stop waits for it, however many times `npm start` has
    // noticed that npm is gone (it passes the signal on once; a second signal would stop
    // the service at once, cutting this request off)
    await new Promise((r) => setTimeout(r, 1000));
    req.end(body);
    const inFlight = await answered;
    expect(inFlight.status, inFlight.text).toBe(201);
    expect(JSON.parse(inFlight.text)).toHaveProperty('labelId');
    await Promise.race([
      exited,
      new Promise((_, reject) => setTimeout(() => reject(new Error('npm did not exit')), 45_000)),
    ]);
    const left = await until(
      'every process of the service to end',
      async () => {
        const still = tree.filter((p) => processAlive(p.pid));
        return still.length === 0 ? still : undefined;
      },
      45_000,
    ).catch(() => tree.filter((p) => processAlive(p.pid)));
    for (const p of left) process.kill(p.pid, 'SIGKILL');
    expect(left.map((p) => p.cmd)).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${port}/livez`)).rejects.toThrow();
  }, 240_000);
});

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, portFree } from '../../src/db/database.ts';
import { client } from '../helpers/app.ts';

/**
 * The embedded default as a user runs it: `node src/main.ts` with no DATABASE_URL,
 * EVENTSTORE_URL or TEMPORAL_ADDRESS: PGlite in a data folder and a local Temporal
 * dev server started by the app. Data must survive a restart of the process.
 */
describe('embedded default (PGlite + local Temporal), as a process', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'embedded-'));
  let proc: ChildProcess | undefined;
  let output = '';

  async function start(port: number): Promise<number> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'info',
    };
    for (const k of ['DATABASE_URL', 'EVENTSTORE_URL', 'TEMPORAL_ADDRESS', 'OPERATOR_API_KEY'])
      delete env[k];
    const began = Date.now();
    proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`exited early:\n${output.slice(-3000)}`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return Date.now() - began;
      if (Date.now() - began > 60_000)
        throw new Error(`not ready within 60 s:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async function stop() {
    const p = proc!;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    await exited;
    proc = undefined;
  }

  afterAll(async () => {
    if (proc) await stop();
  });

  // two starts of up to 60 s each and a stop: the test's own limit is far above their sum
  it('is ready within 60 s and keeps a shop integration across a restart', async () => {
    const port = await freePortAndNext();
    const firstStart = await start(port);
    expect(firstStart).toBeLessThan(60_000);
    const operatorKey = readFileSync(path.join(dataDir, 'operator-api-key'), 'utf8').trim();
    // not a terminal: where the key is, never the key itself
    expect(output).not.toContain(operatorKey);
    expect(output).toContain(`stored in ${dataDir}/operator-api-key`);
    const call = client(`http://127.0.0.1:${port}`);
    const label = await call('POST', '/operator/labels', {
      key: operatorKey,
      body: { name: 'Embedded' },
    });
    expect(label.status).toBe(201);
    const created = await call('POST', '/api/shop-integration', {
      key: label.body.adminApiKey,
      body: { name: 'Kept', shopSystem: 'woo', shopUrl: 'https://kept.example' },
    });
    expect(created.status).toBe(201);
    await stop();

    output = '';
    await start(port);
    expect(output).not.toContain('operator API key was generated'); // only at first start
    const read = await call('GET', `/api/shop-integration/${created.body.id}`, {
      key: label.body.adminApiKey,
    });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: created.body.id,
      name: 'Kept',
      shopUrl: 'https://kept.example',
    });
    // a shared machine: nothing under DATA_DIR for others, the database only through a
    // socket in a folder only this user can enter
    const open: string[] = [];
    const walk = (p: string) => {
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) return; // a journal that came and went
      if ((st.mode & 0o077) !== 0) open.push(`${p} ${(st.mode & 0o777).toString(8)}`);
      if (st.isDirectory()) for (const e of readdirSync(p)) walk(path.join(p, e));
    };
    walk(dataDir);
    expect(open).toEqual([]);
    const socket = path.join(dataDir, 'run', '.s.PGSQL.5432');
    expect(statSync(socket).isSocket()).toBe(true);
    expect(statSync(path.join(dataDir, 'run')).mode & 0o777).toBe(0o700);
    if (process.getuid?.() === 0) {
      // as another user of the machine: neither the socket nor the key file can be opened
      const asNobody = (...command: string[]) =>
        spawnSync('runuser', ['-u', 'nobody', '--', ...command], { encoding: 'utf8' });
      const connect = asNobody(
        'python3',
        '-c',
        `import socket\ntry:\n  socket.socket(socket.AF_UNIX).connect(${JSON.stringify(socket)}); print('connected')\nexcept PermissionError: print('EACCES')`,
      );
      expect(connect.stdout.trim()).toBe('EACCES');
      const read = asNobody('cat', path.join(dataDir, 'operator-api-key'));
      expect(read.status).not.toBe(0);
      expect(read.stderr).toMatch(/Permission denied/);
    }
    const ready = await call('GET', '/readyz');
    expect(ready.body.checks).toEqual({
      database: { ok: true },
      eventStore: { ok: true },
      projections: { ok: true },
      reactions: { ok: true },
      routing: { ok: true },
      storage: { ok: true },
      temporal: { ok: true },
      webhooks: { ok: true },
      worker: { ok: true },
    });
  }, 300_000);

  it('runs the newcomer’s demo against it: seed:demo follows DATA_DIR and PORT and ends with a printed order', async () => {
    if (!proc) await start(await freePortAndNext());
    // the port of the service running now (the output holds every start's)
    const port = [...output.matchAll(/"url":"http:\/\/127\.0\.0\.1:(\d+)"/g)].at(-1)?.[1];
    expect(port).toBeDefined();
    const seed = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/seed-demo.ts'], {
        // vitest sets BASE_URL to '/' for its own use
        env: {
          ...process.env,
          BASE_URL: '',
          SEED_PER_SUPPLIER: '20',
          TEMPORAL_UI_PORT: '0',
          ...env,
        },
        encoding: 'utf8',
        timeout: 240_000,
      });
    // the demo logs in through the partner simulator the service started beside itself
    const sims = [...output.matchAll(/partner simulator (started|not started)/g)];
    expect(sims.at(-1)?.[1], output.slice(-2000)).toBe('started');
    // another data folder than the service's: one plain line, no stack
    const wrong = seed({ PORT: port!, DATA_DIR: path.join(dataDir, 'elsewhere') });
    expect(wrong.status, wrong.stderr).toBe(1);
    expect(wrong.stderr.trim()).toBe(
      `no operator key at ${path.join(dataDir, 'elsewhere', 'operator-api-key')}: run this with the DATA_DIR the service runs with, or set OPERATOR_API_KEY`,
    );
    const r = seed({ PORT: port!, DATA_DIR: dataDir });
    expect(r.status, r.stderr + r.stdout.slice(-2000)).toBe(0);
    const ready =
      /Order (DEMO-\w+) is ready: .*\n\s+print file\s+(\S+\.pdf)\n[\s\S]*ops page\s+(\S+)/.exec(
        r.stdout,
      );
    expect(ready, r.stdout.slice(-2000)).not.toBeNull();
    const [, orderId, file, ops] = ready!;
    expect(readFileSync(file!).subarray(0, 8).toString('latin1')).toBe('%PDF-1.6');
    expect(ops).toBe(
      `http://127.0.0.1:${port}/ops/labels/${/label id\s+(\S+)/.exec(r.stdout)![1]}/orders/${orderId}`,
    );
    expect((await fetch(ops!, { redirect: 'manual' })).status).toBe(303); // to the login page
  }, 300_000);
});

/**
 * A free port whose next port is free too: the embedded default puts its partner
 * simulator on the next one, and leaves it out when that port is busy (another test
 * file's server took it once, and the demo user could not log in).
 */
async function freePortAndNext(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (await portFree(port + 1)) return port;
  }
}

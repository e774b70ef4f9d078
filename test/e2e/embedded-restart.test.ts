import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/database.ts';
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

  it('is ready within 60 s and keeps a shop integration across a restart', async () => {
    const port = await freePort();
    const firstStart = await start(port);
    expect(firstStart).toBeLessThan(60_000);
    const operatorKey = readFileSync(path.join(dataDir, 'operator-api-key'), 'utf8').trim();
    expect(output).toContain(operatorKey); // printed once to the terminal, at first start
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
    expect(output).not.toContain(operatorKey); // not printed again
    const read = await call('GET', `/api/shop-integration/${created.body.id}`, {
      key: label.body.adminApiKey,
    });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: created.body.id,
      name: 'Kept',
      shopUrl: 'https://kept.example',
    });
    const ready = await call('GET', '/readyz');
    expect(ready.body.checks).toEqual({
      database: { ok: true },
      eventStore: { ok: true },
      projections: { ok: true },
      reactions: { ok: true },
      temporal: { ok: true },
      worker: { ok: true },
    });
  });
});

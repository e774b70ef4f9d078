import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditTreeSize } from '../../projections/audit-tree.ts';
import { freePort } from '../../src/db/database.ts';
import type { NewEvent } from '../../src/eventstore/port.ts';
import { client, joiningEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import { exportLog, jsonFiles, verifier } from '../helpers/audit.ts';
import { until } from '../helpers/orders.ts';

const EVENTS = 100_000;
const save = jsonFiles('audit-scale-');

const loadEvent = (n: number): NewEvent => ({
  id: randomUUID(),
  type: 'LoadRecorded',
  schemaVersion: 1,
  data: { n, note: `event ${n} é ✓ "quoted" \\ back`, sha256: 'ab'.repeat(32) },
  metadata: { correlationId: randomUUID(), actor: 'test' },
});

/**
 * The audit tree of a log of 100,000 events, built by the projector role in a process of
 * its own, killed with SIGKILL mid-build and started again: its signed root equals the
 * root the offline verifier makes from scratch over an export of the log.
 */
describe('the audit tree of 100,000 events', () => {
  let t: TestApp;
  let projector: ChildProcess | undefined;
  let out = '';

  const startProjector = async () => {
    const port = await freePort();
    out = '';
    const p = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--role', 'projector'], {
      env: {
        ...process.env,
        ...joiningEnv(t),
        PORT: String(port),
        LOG_LEVEL: 'warn',
        AUDIT_HEAD_INTERVAL_MS: '300',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    p.stdout!.on('data', (d) => (out += d));
    p.stderr!.on('data', (d) => (out += d));
    projector = p;
    return p;
  };

  beforeAll(async () => {
    // the API here; the projections, the tree and its signing in a process of their own
    t = await startTestApp({}, { roles: ['api', 'worker'] });
  }, 120_000);
  afterAll(async () => {
    projector?.kill('SIGKILL');
    await t?.stop();
  });

  it('signs the root a from-scratch tree of the exported log has, after a kill -9 mid-build', async () => {
    const pool = t.app.db.pool;
    // the log: 100,000 events in appends of 500, four at a time
    const appends = Array.from({ length: EVENTS / 500 }, (_, k) => k);
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let k = appends.shift(); k !== undefined; k = appends.shift())
          await t.app.store.append(
            `AuditLoad-${randomUUID()}`,
            Array.from({ length: 500 }, (_, i) => loadEvent(k * 500 + i)),
            'no_stream',
          );
      }),
    );
    const logSize = async () =>
      Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM es_events')).rows[0]!.n);
    const total = await logSize();
    expect(total).toBeGreaterThanOrEqual(EVENTS);

    // killed once it has built part of the tree
    const first = await startProjector();
    const partial = await until(
      'the tree to be partly built',
      async () => {
        if (first.exitCode !== null) throw new Error(`projector exited:\n${out.slice(-2000)}`);
        const size = await auditTreeSize(pool).catch(() => 0);
        return size >= 5_000 ? size : undefined;
      },
      120_000,
      20,
    );
    const gone = once(first, 'exit');
    first.kill('SIGKILL');
    await gone;
    const atKill = await auditTreeSize(pool);
    expect(partial).toBeLessThan(total);
    expect(atKill).toBeLessThan(total);

    // started again: it goes on from its checkpoint, each event a leaf once
    await startProjector();
    const whole = await until(
      'the tree to hold the whole log',
      async () => {
        const [size, log] = [await auditTreeSize(pool), await logSize()];
        return size === log ? size : undefined;
      },
      300_000,
    );
    expect(whole).toBeGreaterThanOrEqual(total);
    const call = client(t.url);
    const head = await until(
      'a head signed over the whole log',
      async () => {
        const h = await call('GET', '/api/audit/tree-head', { key: t.operatorKey });
        return h.status === 200 && h.body.treeSize >= whole ? h.body : undefined;
      },
      60_000,
    );
    const keys = (await call('GET', '/api/audit/public-keys', { key: t.operatorKey })).body;

    // the log exported as an operator would, and the verifier's tree of it from scratch
    const exported = path.join(path.dirname(save('head.json', head)), 'log.ndjson');
    expect(exportLog(joiningEnv(t), exported)).toHaveLength(head.treeSize);
    const scratch = verifier('--log', exported);
    expect(scratch.code, scratch.said).toBe(0);
    expect(scratch.said).toContain(`${head.treeSize} events, root ${head.rootHash}`);
    const checked = verifier(
      '--log',
      exported,
      '--head',
      save('head.json', head),
      '--public-keys',
      save('keys.json', keys),
    );
    expect(checked).toMatchObject({ code: 0 });
  }, 600_000);
});

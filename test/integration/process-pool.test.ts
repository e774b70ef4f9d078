import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IMAGE_PROCESS, IMAGE_V8_FLAGS, ImageChecks, Renders } from '../../src/print/image-work.ts';
import {
  JobCancelledError,
  JobCrashedError,
  JobDeadlineError,
  ProcessPool,
} from '../../src/print/process-pool.ts';
import { processAlive } from '../../src/processes.ts';
import { FilesystemStorage } from '../../src/storage/filesystem.ts';
import { until } from '../helpers/orders.ts';
import { renderAll, renderCases, sha256 } from '../helpers/render-cases.ts';

/** An SVG with nothing to refuse that takes seconds to draw at 300 mm. */
const costly = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">${'<rect width="1000" height="1000" fill="#c00" fill-opacity="0.5"/>'.repeat(5000)}</svg>`,
);
const check = (bytes: Buffer, mm = 300) => ({
  type: 'image/svg+xml',
  bytes,
  widthMm: mm,
  heightMm: mm,
});
const small = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
);

/**
 * The image processes: a job past its deadline kills its process (the work stops, the
 * next job gets a new one), a process killed from outside fails only its own job, and
 * owners take turns.
 */
describe('image processes', () => {
  const pools: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.close();
  });

  it('kills a job at its deadline, and the next job gets a new process', async () => {
    // the costly check takes about 40 s alone (12 s at 1,500 rectangles finished under the
    // 6 s deadline once in CI); a small one takes milliseconds, and since a job's time
    // counts from its start in its process, not from the process's start, it stays far
    // below the deadline: 15 s, as a small one once took over 6 s on a machine loaded
    // by a flake hunt and a soak at once
    const checks = new ImageChecks({ processes: 1, timeoutMs: 15_000, queuedPerUser: 4 });
    pools.push(checks);
    await checks.check('u', check(small, 10));
    const [pid] = checks.pids;
    const began = Date.now();
    const err = await checks.check('u', check(costly)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobDeadlineError);
    // killed at its deadline (15 s), long before the 40 s the check would take alone
    expect(Date.now() - began).toBeLessThan(35_000);
    // the process that held the work is gone, not left drawing (killed at once; reaped
    // when this loop gets to it, which a loaded machine may take a moment for)
    await until(
      'the killed process to be gone',
      async () => !processAlive(pid!) || undefined,
      30_000,
    );
    await checks.check('u', check(small, 10));
    expect(checks.pids).toHaveLength(1);
    expect(checks.pids[0]).not.toBe(pid);
  }, 120_000);

  it('starts its processes with the V8 flags it is given, beside the heap limit', async () => {
    const pool = new ProcessPool({
      name: 'flags',
      module: IMAGE_PROCESS,
      size: 1,
      deadlineMs: 60_000,
      maxHeapMiB: 256,
      v8Flags: IMAGE_V8_FLAGS,
    });
    pools.push(pool);
    await pool.run('checkImage', check(small, 10), { owner: 'a' });
    const argv = readFileSync(`/proc/${pool.pids[0]}/cmdline`, 'utf8').split('\0');
    expect(argv).toEqual(expect.arrayContaining(['--max-old-space-size=256', ...IMAGE_V8_FLAGS]));
  }, 60_000);

  it('calls a job off: a running one has its process killed at once, a waiting one leaves the queue', async () => {
    const checks = new ProcessPool({
      name: 'cancel',
      module: IMAGE_PROCESS,
      size: 1,
      deadlineMs: 60_000,
    });
    pools.push(checks);
    await checks.run('checkImage', check(small, 10), { owner: 'a' });
    const [pid] = checks.pids;
    const running = new AbortController();
    const waiting = new AbortController();
    const began = Date.now();
    const first = checks.run('checkImage', check(costly), { owner: 'a', signal: running.signal });
    const second = checks.run('checkImage', check(costly), { owner: 'b', signal: waiting.signal });
    await new Promise((r) => setTimeout(r, 300));
    waiting.abort();
    expect(await second.catch((e: unknown) => e)).toBeInstanceOf(JobCancelledError);
    running.abort();
    expect(await first.catch((e: unknown) => e)).toBeInstanceOf(JobCancelledError);
    // the costly check takes about 40 s alone: both were called off long before
    expect(Date.now() - began).toBeLessThan(20_000);
    await until(
      'the killed process to be gone',
      async () => !processAlive(pid!) || undefined,
      30_000,
    );
    // the pool goes on with a new process
    await checks.run('checkImage', check(small, 10), { owner: 'a' });
    expect(checks.pids[0]).not.toBe(pid);
  }, 60_000);

  it('never starts a process at a higher CPU priority than its parent', async () => {
    const own = os.getPriority();
    const parentNice = Math.min(19, own + 5);
    os.setPriority(parentNice);
    try {
      const poolAt = (nice: number) => {
        const pool = new ProcessPool({
          name: 'nice',
          module: IMAGE_PROCESS,
          size: 1,
          deadlineMs: 60_000,
          nice,
        });
        pools.push(pool);
        return pool;
      };
      // asked for 0 under a parent at +5: the child stays at +5 (as root it could go up);
      // a job done shows the child is past the line that would have changed it
      const same = poolAt(0);
      await same.run('checkImage', check(small, 10), { owner: 'a' });
      expect(os.getPriority(same.pids[0])).toBe(parentNice);
      // asked for lower than the parent: lowered, at the child's first lines. Its job is
      // not waited for: at nice 19 on a machine kept busy a job may wait minutes for a core
      const lowered = poolAt(19);
      lowered.run('checkImage', check(small, 10), { owner: 'a' }).catch(() => {});
      await until(
        'the child at nice 19',
        async () => {
          const pid = lowered.pids[0];
          return pid !== undefined && os.getPriority(pid) === 19 ? pid : undefined;
        },
        50_000,
      );
    } finally {
      try {
        os.setPriority(own);
      } catch {
        // not root: this test process stays nicer, which harms nothing
      }
    }
  }, 60_000);

  it('fails only the job whose process was killed; the others go on', async () => {
    const checks = new ImageChecks({ processes: 2, timeoutMs: 60_000, queuedPerUser: 4 });
    pools.push(checks);
    const a = checks.check('a', check(costly));
    const b = checks.check('b', check(small, 10));
    await new Promise((r) => setTimeout(r, 500));
    await b;
    const victim = checks.pids[0]!;
    process.kill(victim, 'SIGKILL');
    expect(await a.catch((e: unknown) => e)).toBeInstanceOf(JobCrashedError);
    await checks.check('a', check(small, 10));
  }, 60_000);

  it('lets owners take turns: another owner’s job starts before the first owner’s backlog', async () => {
    const checks = new ImageChecks({ processes: 1, timeoutMs: 60_000, queuedPerUser: 10 });
    pools.push(checks);
    const done: string[] = [];
    const jobs = [
      ...[1, 2, 3].map((n) =>
        checks.check('busy', check(small, 10)).then(() => done.push(`busy-${n}`)),
      ),
      checks.check('other', check(small, 10)).then(() => done.push('other')),
    ];
    await Promise.all(jobs);
    expect(done.indexOf('other')).toBeLessThan(done.indexOf('busy-3'));
  }, 60_000);

  it('renders every determinism case in render processes to the bytes rendered here, and keeps them in the store', async () => {
    const renders = new Renders(2, 60_000);
    pools.push(renders);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'renders-'));
    const files = await FilesystemStorage.open(path.join(dataDir, 'print-files'));
    const cases = await renderCases();
    const here = await renderAll();
    const there = await Promise.all(
      cases.map(async (c) => {
        const { file } = await renders.render('test', {
          job: c.job,
          stores: { dataDir },
          keep: `cases/${c.name}/`,
        });
        const kept = await files.get(file.storageKey!);
        expect(file.storageKey).toBe(`cases/${c.name}/${file.sha256}.pdf`);
        expect(kept && sha256(kept)).toBe(file.sha256);
        expect(file.size).toBe(kept?.length);
        return [c.name, file.sha256];
      }),
    );
    expect(Object.fromEntries(there)).toEqual(here);
    // without a prefix to keep it under, a render is only hashed (replays)
    const { file } = await renders.render('test', { job: cases[0]!.job, stores: { dataDir } });
    expect(file.sha256).toBe(here[cases[0]!.name]);
    expect(file.storageKey).toBeUndefined();
    expect((await files.list('')).length).toBe(cases.length);
  }, 120_000);
});

import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { DomainError } from '../domain/shared/decider.ts';
import { type ErrorRecord, errorOf } from './errors.ts';

/**
 * Image work (decoding, rasterising, rendering) in child processes, where a deadline
 * really stops it. libvips and librsvg cannot be interrupted from JavaScript: a time-out
 * that only stops waiting (Promise.race, sharp's own timeout between tiles) leaves a
 * core busy for as long as the work takes. A job past its deadline kills its process
 * (SIGKILL); the next job gets a new one.
 *
 * Jobs wait in one queue per owner (an editor's user, a label, "renders"), taken in turn,
 * so one owner's heavy work never starves another's; an owner may have at most
 * `perOwner` jobs running and `maxQueuedPerOwner` waiting (more is refused at once).
 */
export interface PoolOptions {
  /** what the pool is for, in errors and logs */
  name: string;
  /** the child's module (its source or compiled file) */
  module: URL;
  /** processes at most (they start with the first jobs and end after `idleMs`) */
  size: number;
  /** how long one job may run, unless the job says otherwise */
  deadlineMs: number;
  /** jobs one owner may have running at once */
  perOwner?: number;
  /** jobs one owner may have waiting; more are refused with `too_many_jobs` */
  maxQueuedPerOwner?: number;
  /** an idle process ends after this long (its memory back to the system) */
  idleMs?: number;
  /** the child's V8 heap limit, MiB: a job that needs more fails instead of swelling the host */
  maxHeapMiB?: number;
  /** more V8 flags for the child (its garbage collector's settings) */
  v8Flags?: string[];
  /** the child's CPU priority (a nice value, 0-19) */
  nice?: number;
  /**
   * Start every process with the pool, each running this job once at its start (its
   * modules loaded and compiled before the first real job: a cold process renders its
   * first items a third slower).
   */
  warmUp?: string;
}

export interface JobOptions {
  owner: string;
  deadlineMs?: number;
  /**
   * aborted: a waiting job leaves the queue, a running one's process is killed (JobCancelledError)
   */
  signal?: AbortSignal;
  /** called every few seconds while the job waits for a process (a Temporal heartbeat) */
  whileWaiting?: () => void;
}

/** What crosses to a child: a job by name and its input; back: its output or an error. */
export type JobRequest = { id: number; job: string; input: unknown };
/** how long a process may take to load a job's code before the job starts */
const START_LIMIT_MS = 60_000;

export type JobReply =
  | { id: number; started: true }
  | { id: number; ok: true; output: unknown }
  | { id: number; ok: false; error: ErrorRecord };

/** A job was stopped at its deadline: its process was killed. */
export class JobDeadlineError extends Error {
  override name = 'JobDeadlineError';
  constructor(readonly seconds: number) {
    super(`it took longer than ${seconds} s`);
  }
}

/**
 * A job was called off by its caller (JobOptions.signal): taken from the queue, or its process
 * killed.
 */
export class JobCancelledError extends Error {
  override name = 'JobCancelledError';
}

/** A job's process ended under it (out of memory, a crash in a library). */
export class JobCrashedError extends Error {
  override name = 'JobCrashedError';
}

interface Job {
  id: number;
  job: string;
  input: unknown;
  owner: string;
  deadlineMs: number;
  resolve: (output: unknown) => void;
  reject: (err: Error) => void;
  heartbeat: NodeJS.Timeout | undefined;
}

interface Slot {
  child: ChildProcess | undefined;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
}

const require = createRequire(import.meta.url);

/**
 * How a child runs its module: TypeScript through tsx (tests, `npm start`), compiled JavaScript as
 * it is.
 */
function execArgvFor(module: URL, maxHeapMiB: number | undefined, v8Flags: string[]): string[] {
  // the parent's resolution conditions (--conditions=production in the image), in either spelling
  const conditions: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--conditions=')) conditions.push(a);
    else if ((a === '--conditions' || a === '-C') && argv[i + 1])
      conditions.push(`--conditions=${argv[++i]}`);
  }
  const heap = [...(maxHeapMiB ? [`--max-old-space-size=${maxHeapMiB}`] : []), ...v8Flags];
  const tsx = module.pathname.endsWith('.ts') ? ['--import', require.resolve('tsx')] : [];
  return [...conditions, ...heap, ...tsx];
}

export class ProcessPool {
  private readonly slots: Slot[];
  /** waiting jobs per owner; `turns` is the order owners are served in */
  private readonly queues = new Map<string, Job[]>();
  private turns: string[] = [];
  private readonly running = new Map<string, number>();
  private next = 1;
  private closed = false;

  constructor(private readonly opts: PoolOptions) {
    this.slots = Array.from({ length: Math.max(1, opts.size) }, () => ({
      child: undefined,
      job: undefined,
      timer: undefined,
      idle: undefined,
    }));
    if (opts.warmUp)
      for (const slot of this.slots) {
        this.spawn(slot);
        // a process warmed up for work that never comes ends as an idle one does
        this.idleLater(slot);
      }
  }

  run<T>(job: string, input: unknown, options: JobOptions): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`the ${this.opts.name} pool is closed`));
    const queue = this.queues.get(options.owner) ?? [];
    if (queue.length >= (this.opts.maxQueuedPerOwner ?? Number.POSITIVE_INFINITY))
      return Promise.reject(
        new DomainError(
          'rate_limited',
          `${queue.length} ${this.opts.name} jobs of yours are waiting already; send this one when they are done`,
          'too_many_jobs',
          { retryAfterSeconds: 5 },
        ),
      );
    if (options.signal?.aborted) return Promise.reject(new JobCancelledError('called off'));
    return new Promise<T>((resolve, reject) => {
      const j: Job = {
        id: this.next++,
        job,
        input,
        owner: options.owner,
        deadlineMs: options.deadlineMs ?? this.opts.deadlineMs,
        resolve: resolve as (output: unknown) => void,
        reject,
        heartbeat: options.whileWaiting ? setInterval(options.whileWaiting, 5000) : undefined,
      };
      queue.push(j);
      this.queues.set(options.owner, queue);
      if (!this.turns.includes(options.owner)) this.turns.push(options.owner);
      options.signal?.addEventListener('abort', () => this.cancel(j), { once: true });
      this.dispatch();
    });
  }

  /** Calls a job off: out of its queue while it waits, its process killed while it runs. */
  private cancel(j: Job): void {
    const queue = this.queues.get(j.owner);
    const at = queue?.indexOf(j) ?? -1;
    if (queue && at >= 0) {
      queue.splice(at, 1);
      if (queue.length === 0) {
        this.queues.delete(j.owner);
        this.turns = this.turns.filter((o) => o !== j.owner);
      }
      this.fail(j, new JobCancelledError('called off while waiting'));
      return;
    }
    const slot = this.slots.find((s) => s.job === j);
    if (!slot) return; // settled already
    this.finish(slot, (job) => this.fail(job, new JobCancelledError('called off while running')));
    this.kill(slot);
  }

  /** Jobs running now. */
  get busy(): number {
    return this.slots.filter((s) => s.job).length;
  }

  /** The process ids of the pool's processes now (for measurements). */
  get pids(): number[] {
    return this.slots.flatMap((s) => (s.child?.pid ? [s.child.pid] : []));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.queues.values())
      for (const j of queue) this.fail(j, new Error(`the ${this.opts.name} pool is closed`));
    this.queues.clear();
    this.turns = [];
    await Promise.all(this.slots.map((s) => this.stop(s)));
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.job || this.closed) continue;
      const j = this.take();
      if (!j) return;
      this.start(slot, j);
    }
  }

  /** The next job in turn: owners are served round-robin, each within its running limit. */
  private take(): Job | undefined {
    const limit = this.opts.perOwner ?? Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.turns.length; i++) {
      const owner = this.turns[i]!;
      if ((this.running.get(owner) ?? 0) >= limit) continue;
      const queue = this.queues.get(owner)!;
      const j = queue.shift()!;
      // served: to the back of the line, or out of it when nothing of theirs waits
      this.turns.splice(i, 1);
      if (queue.length > 0) this.turns.push(owner);
      else this.queues.delete(owner);
      return j;
    }
    return undefined;
  }

  private start(slot: Slot, j: Job): void {
    clearInterval(j.heartbeat);
    clearTimeout(slot.idle);
    slot.job = j;
    this.running.set(j.owner, (this.running.get(j.owner) ?? 0) + 1);
    const child = slot.child ?? this.spawn(slot);
    // until the process says the job started (its code loaded), a start that hangs is cut
    // at the longer of the deadline and a minute
    this.deadline(slot, Math.max(j.deadlineMs, START_LIMIT_MS));
    child.send({ id: j.id, job: j.job, input: j.input } satisfies JobRequest);
  }

  private deadline(slot: Slot, ms: number): void {
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      // the work cannot be interrupted: the process goes, and with it the work
      this.finish(slot, (job) => this.fail(job, new JobDeadlineError(job.deadlineMs / 1000)));
      this.kill(slot);
    }, ms);
  }

  private spawn(slot: Slot): ChildProcess {
    const path = fileURLToPath(this.opts.module);
    const child = fork(path, [], {
      serialization: 'advanced',
      execArgv: execArgvFor(this.opts.module, this.opts.maxHeapMiB, this.opts.v8Flags ?? []),
      env: {
        ...process.env,
        PROCESS_POOL_NICE: String(this.opts.nice ?? 0),
        PROCESS_POOL_WARM_UP: this.opts.warmUp ?? '',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    slot.child = child;
    child.on('message', (reply: JobReply) => {
      if (slot.child !== child || slot.job?.id !== reply.id) return;
      if ('started' in reply) return this.deadline(slot, slot.job.deadlineMs);
      this.finish(slot, (job) => {
        if (reply.ok) job.resolve(reply.output);
        else job.reject(errorOf(reply.error));
      });
      this.idleLater(slot);
      this.dispatch();
    });
    child.on('exit', (code, signal) => {
      if (slot.child !== child) return;
      slot.child = undefined;
      // a process that ended under a job (out of memory, a crash) fails that job only
      this.finish(slot, (job) =>
        this.fail(
          job,
          new JobCrashedError(
            `the ${this.opts.name} process ended while working (${signal ?? `exit code ${code}`})`,
          ),
        ),
      );
      this.dispatch();
    });
    child.on('error', () => {
      // a failed send or spawn is followed by 'exit', which fails the job
    });
    return child;
  }

  private finish(slot: Slot, settle: (job: Job) => void): void {
    const j = slot.job;
    if (!j) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    const n = (this.running.get(j.owner) ?? 1) - 1;
    if (n > 0) this.running.set(j.owner, n);
    else this.running.delete(j.owner);
    settle(j);
  }

  private fail(j: Job, err: Error): void {
    clearInterval(j.heartbeat);
    j.reject(err);
  }

  private kill(slot: Slot): void {
    const child = slot.child;
    slot.child = undefined;
    child?.kill('SIGKILL');
    this.dispatch();
  }

  private idleLater(slot: Slot): void {
    clearTimeout(slot.idle);
    if (!this.opts.idleMs) return;
    slot.idle = setTimeout(() => {
      if (!slot.job) void this.stop(slot);
    }, this.opts.idleMs);
    slot.idle.unref();
  }

  private async stop(slot: Slot): Promise<void> {
    clearTimeout(slot.idle);
    const child = slot.child;
    slot.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

import os from 'node:os';
import type { ParsedDataset } from '../datasets/parse.ts';
import type { DrawnMockup, MockupJob } from '../mockup/draw.ts';
import type { ImageToCheck } from './image-checks.ts';
import type { Rgb } from './inks.ts';
import { type JobOptions, ProcessPool } from './process-pool.ts';
import type { ProofPage, ProofRequest } from './proof.ts';
import type { SlipToDraw } from './slip-job.ts';
import type { StoredRender, StoredRenderJob } from './stored-render.ts';
import type { DatasetCheck } from './vdp/check.ts';
import type {
  CheckJob,
  IngestJob,
  RecordJob,
  ReprintedRecords,
  StoredVariable,
  StoredVariableJob,
} from './vdp/jobs.ts';

/** The image process's module: its TypeScript source under tsx, its compiled file in dist/. */
export const IMAGE_PROCESS = new URL(
  import.meta.url.endsWith('.ts') ? './image-process.ts' : './image-process.js',
  import.meta.url,
);

export interface ImageCheckSettings {
  /** processes at most (IMAGE_CHECK_PROCESSES) */
  processes: number;
  /** how long one image may take to check (IMAGE_CHECK_TIMEOUT_MS) */
  timeoutMs: number;
  /** images one user may have waiting, beyond the one being checked (IMAGE_CHECKS_QUEUED) */
  queuedPerUser: number;
}

export const defaultImageCheckSettings = (): ImageCheckSettings => ({
  processes: Math.max(1, os.availableParallelism()),
  timeoutMs: 30_000,
  queuedPerUser: 4,
});

/**
 * The checks of images that clients send (project saves): every decode and rasterise
 * runs in an image process, where the time limit kills the work instead of only
 * stopping to wait for it. One user's images are checked one at a time, and users take
 * turns, so one user's costly files never keep another's waiting long.
 */
export class ImageChecks {
  private readonly pool: ProcessPool;

  constructor(readonly settings: ImageCheckSettings = defaultImageCheckSettings()) {
    this.pool = new ProcessPool({
      name: 'image check',
      module: IMAGE_PROCESS,
      size: settings.processes,
      deadlineMs: settings.timeoutMs,
      perOwner: 1,
      maxQueuedPerOwner: settings.queuedPerUser,
      idleMs: 60_000,
      maxHeapMiB: 512,
    });
  }

  check(owner: string, image: ImageToCheck): Promise<void> {
    return this.pool.run('checkImage', image, { owner });
  }

  /** An image's colours as inks (see inks.ts), in an image process. */
  colours(owner: string, bytes: Uint8Array, n: number): Promise<Rgb[] | undefined> {
    return this.pool.run('imageColours', { bytes, n }, { owner } satisfies JobOptions);
  }

  /** An image's size from its header, in an image process; undefined when it cannot be read. */
  size(owner: string, bytes: Uint8Array): Promise<{ width: number; height: number } | undefined> {
    return this.pool.run('imageSize', { bytes }, { owner });
  }

  /** A logo that passed its check, made a PNG of at most 1200 px, in an image process. */
  logo(
    owner: string,
    bytes: Uint8Array,
  ): Promise<{ data: Uint8Array; width: number; height: number }> {
    return this.pool.run('normaliseLogo', { bytes }, { owner });
  }

  /** A packing slip drawn in an image process. */
  packingSlip(owner: string, slip: SlipToDraw): Promise<Uint8Array> {
    return this.pool.run('drawPackingSlip', slip, { owner });
  }

  /** The image processes now, for measurements. */
  get pids(): number[] {
    return this.pool.pids;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * The garbage collector of the render and mockup processes. A render or a mockup
 * allocates tens of MB of buffers outside V8's heap (decoded images, the PDF, libvips'
 * output, pdf.js's copies), and V8 answers that growth with a full collection: for
 * mockups, at its default start, about two a mockup (15% of its time). Starting the old
 * generation at 128 MiB lets the heap take several jobs before one. One thread for the
 * collector: these processes are CPU work beside other CPU work (the other renders, the
 * service), where parallel marking threads cost more than they save. Measured (A/B, this
 * machine): the mockup bench's throughput on both cores 0.67-0.71 -> 0.71-0.77 of a plain
 * composite; the pipeline bench's render time in the activity 1.47-1.59x -> 1.35-1.44x
 * the raw render, for about 30 MiB more per render process at its peak.
 */
export const IMAGE_V8_FLAGS = ['--initial-old-space-size=128', '--single-threaded-gc'];

/**
 * Print files rendered in image processes, one per render slot (RENDER_CONCURRENCY): a
 * render past its time limit is killed, not abandoned to run on; and the worker's own
 * heap holds no render's buffers. Labels take turns when renders wait.
 */
export class Renders {
  private readonly pool: ProcessPool;

  private readonly deadlineMs: number;

  /**
   * `warmUp`: the processes start at once and render a few small items (else at the first render,
   * cold)
   */
  constructor(processes: number, timeoutMs: number, warmUp = true) {
    this.deadlineMs = timeoutMs;
    this.pool = new ProcessPool({
      name: 'render',
      module: IMAGE_PROCESS,
      size: processes,
      deadlineMs: timeoutMs,
      maxHeapMiB: 1024,
      v8Flags: IMAGE_V8_FLAGS,
      // a render process holds 100-160 MB idle: after a minute without a render it ends,
      // and the next sale starts (and warms up) one again
      idleMs: 60_000,
      ...(warmUp ? { warmUp: 'warmUpRenders' } : {}),
    });
  }

  render(owner: string, job: StoredRenderJob, whileWaiting?: () => void): Promise<StoredRender> {
    return this.pool.run('renderStored', job, { owner, ...(whileWaiting ? { whileWaiting } : {}) });
  }

  /**
   * A variable item's PDF/VT file: its time limit grows with its records (20 ms each
   * beyond the usual limit; the renderer takes under 1 ms a record on this machine).
   */
  renderVariable(
    owner: string,
    job: StoredVariableJob,
    records: number,
    whileWaiting?: () => void,
  ): Promise<StoredVariable> {
    return this.pool.run('renderVariableStored', job, {
      owner,
      deadlineMs: this.deadlineMs + records * 20,
      ...(whileWaiting ? { whileWaiting } : {}),
    });
  }

  /**
   * A reprint of some records of a variable item: the whole file rendered again to compare, and a
   * file of those records kept.
   */
  reprintVariable(
    owner: string,
    job: StoredVariableJob & { keep: string; records: number[] },
    records: number,
  ): Promise<ReprintedRecords> {
    return this.pool.run('reprintVariableStored', job, {
      owner,
      deadlineMs: this.deadlineMs + records * 25,
    });
  }

  /** The render processes now, for measurements. */
  get pids(): number[] {
    return this.pool.pids;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * Mockups drawn in image processes: before a sale for the editor and the shop (at normal
 * priority, a user's one at a time), after it for each order item (the worker's, at the
 * lowest CPU priority: print files first). The worker's pool draws the items' proofs too.
 */
export class MockupDrawing {
  private readonly pool: ProcessPool;

  constructor(options: { processes: number; timeoutMs: number; nice: number }) {
    this.pool = new ProcessPool({
      name: 'mockup',
      module: IMAGE_PROCESS,
      size: options.processes,
      deadlineMs: options.timeoutMs,
      perOwner: 1,
      maxQueuedPerOwner: 8,
      idleMs: 60_000,
      maxHeapMiB: 1024,
      v8Flags: IMAGE_V8_FLAGS,
      nice: options.nice,
    });
  }

  draw(owner: string, job: MockupJob): Promise<DrawnMockup[]> {
    return this.pool.run('drawMockups', job, { owner });
  }

  /** An item's proof: a PNG per page of its print file (src/print/proof.ts). */
  proof(owner: string, job: ProofRequest): Promise<ProofPage[]> {
    return this.pool.run('drawProof', job, { owner });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * Variable data before the sale and beside it, in image processes: a data set taken in
 * (parsed and sealed), its rows checked against a design, one record drawn alone. A
 * label's jobs run one at a time and labels take turns, so one label's 100,000 rows never
 * keep another's check waiting behind them.
 */
export class VariableData {
  private readonly pool: ProcessPool;

  constructor(options: { processes: number; timeoutMs: number }) {
    this.pool = new ProcessPool({
      name: 'variable data',
      module: IMAGE_PROCESS,
      size: options.processes,
      deadlineMs: options.timeoutMs,
      perOwner: 1,
      maxQueuedPerOwner: 8,
      idleMs: 60_000,
      maxHeapMiB: 1024,
      v8Flags: IMAGE_V8_FLAGS,
    });
  }

  ingest(owner: string, job: IngestJob): Promise<ParsedDataset> {
    return this.pool.run('ingestDataset', job, { owner });
  }

  check(owner: string, job: CheckJob): Promise<DatasetCheck> {
    return this.pool.run('checkDataset', job, { owner });
  }

  record(owner: string, job: RecordJob): Promise<{ bytes: Uint8Array; segmentSha256: string }> {
    return this.pool.run('variableRecord', job, { owner });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

import os from 'node:os';
import { recordOf } from './errors.ts';
import type { JobReply, JobRequest } from './process-pool.ts';

/**
 * An image process of a ProcessPool: takes one job at a time from its parent, by name,
 * and answers its output or its error. Its modules load at the first job that needs
 * them. It ends when its parent goes (the IPC channel closes), and when the parent kills
 * it at a job's deadline.
 */
const jobs: Record<string, (input: never) => Promise<unknown>> = {
  async checkImage(input: import('./image-checks.ts').ImageToCheck) {
    const { checkImage } = await import('./image-checks.ts');
    return checkImage(input);
  },
  async imageColours(input: { bytes: Uint8Array; n: number }) {
    const { imageColours } = await import('./inks.ts');
    return imageColours(Buffer.from(input.bytes), input.n);
  },
  async renderItem(input: import('./render-job.ts').RenderJob) {
    const { renderJob } = await import('./render-job.ts');
    return renderJob(input);
  },
  async warmUpRenders() {
    const { warmUp } = await import('./render-job.ts');
    return warmUp();
  },
};

try {
  os.setPriority(Number(process.env.PROCESS_POOL_NICE ?? 0));
} catch {
  // not allowed here: the process runs at its parent's priority
}
process.on('disconnect', () => process.exit(0));
// a job to run at start, before any is sent (its errors are of no one's concern)
const warmUp = process.env.PROCESS_POOL_WARM_UP;
const warming =
  warmUp && jobs[warmUp] ? jobs[warmUp]!(undefined as never).catch(() => {}) : undefined;
process.on('message', async (request: JobRequest) => {
  let reply: JobReply;
  try {
    await warming;
    const run = jobs[request.job];
    if (!run) throw new Error(`no job ${request.job}`);
    reply = { id: request.id, ok: true, output: await run(request.input as never) };
  } catch (err) {
    reply = { id: request.id, ok: false, error: recordOf(err) };
  }
  process.send?.(reply);
});

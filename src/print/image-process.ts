import os from 'node:os';
import { recordOf } from './errors.ts';
import type { JobReply, JobRequest } from './process-pool.ts';

/**
 * An image process of a ProcessPool: takes one job at a time from its parent, by name,
 * and answers its output or its error. Its modules load at the first job that needs
 * them. It ends when its parent goes (the IPC channel closes), and when the parent kills
 * it at a job's deadline.
 */
type Run = (input: never) => Promise<unknown>;
/** each job's code, loaded at its first use (the loading is not the job's time) */
const jobs: Record<string, () => Promise<Run>> = {
  checkImage: async () => (await import('./image-checks.ts')).checkImage as Run,
  imageColours: async () => {
    const { imageColours } = await import('./inks.ts');
    return (async (input: { bytes: Uint8Array; n: number }) =>
      imageColours(Buffer.from(input.bytes), input.n)) as Run;
  },
  renderStored: async () => (await import('./stored-render.ts')).renderStored as Run,
  drawMockups: async () => (await import('../mockup/draw.ts')).drawMockups as Run,
  warmUpRenders: async () => (await import('./render-job.ts')).warmUp as Run,
  imageSize: async () => (await import('./slip-job.ts')).imageSize as Run,
  normaliseLogo: async () => (await import('./slip-job.ts')).normaliseLogo as Run,
  drawPackingSlip: async () => (await import('./slip-job.ts')).drawPackingSlip as Run,
  drawProof: async () => (await import('./proof.ts')).renderProof as Run,
  ingestDataset: async () => (await import('./vdp/jobs.ts')).ingestDataset as Run,
  checkDataset: async () => (await import('./vdp/jobs.ts')).checkDataset as Run,
  renderVariableStored: async () => (await import('./vdp/jobs.ts')).renderVariableStored as Run,
  reprintVariableStored: async () => (await import('./vdp/jobs.ts')).reprintVariableStored as Run,
  variableRecord: async () => (await import('./vdp/jobs.ts')).variableRecord as Run,
  imposeStored: async () =>
    (await import('../production/stored-imposition.ts')).imposeStored as Run,
};

try {
  // never above the parent's priority: a child starts at the parent's nice value, and a
  // pool's nice only lowers it (as root, setting 0 under a service at nice 10 would raise it)
  const inherited = os.getPriority();
  const wanted = Number(process.env.PROCESS_POOL_NICE ?? 0);
  if (wanted > inherited) os.setPriority(Math.min(19, wanted));
} catch {
  // not allowed here: the process runs at its parent's priority
}
process.on('disconnect', () => process.exit(0));
// a job to run at start, before any is sent (its errors are of no one's concern)
const warmUp = process.env.PROCESS_POOL_WARM_UP;
const warming =
  warmUp && jobs[warmUp]
    ? jobs[warmUp]!()
        .then((run) => run(undefined as never))
        .catch(() => {})
    : undefined;
process.on('message', async (request: JobRequest) => {
  let reply: JobReply;
  try {
    await warming;
    const load = jobs[request.job];
    if (!load) throw new Error(`no job ${request.job}`);
    const run = await load();
    // the job's deadline counts from here: starting the process is not its time
    process.send?.({ id: request.id, started: true } satisfies JobReply);
    reply = { id: request.id, ok: true, output: await run(request.input as never) };
  } catch (err) {
    reply = { id: request.id, ok: false, error: recordOf(err) };
  }
  process.send?.(reply);
});

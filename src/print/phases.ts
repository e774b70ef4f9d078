/**
 * The steps of a job in a render process, timed where they run (reading the design's
 * images, the preflight, the print file's put in the store), handed back with the
 * answer so the process that asked can show them as spans of its trace: a render
 * process has no tracer of its own. Times are milliseconds since the epoch.
 */
export interface Phase {
  name: string;
  start: number;
  end: number;
}
export type Phases = Phase[];

const now = () => performance.timeOrigin + performance.now();

/** Runs a step, noting its time in `phases` when given. */
export async function timed<T>(
  phases: Phases | undefined,
  name: string,
  step: () => Promise<T>,
): Promise<T> {
  if (!phases) return step();
  const start = now();
  try {
    return await step();
  } finally {
    phases.push({ name, start, end: now() });
  }
}

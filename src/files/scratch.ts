import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from '../processes.ts';

/**
 * What the service writes to this machine's temporary folder, each in a folder of its
 * own named `<kind>-<pid>-XXXXXX`: a data set's body as it arrives, a variable item's
 * render. A folder is removed when its use ends, however it ends; one left by a process
 * that died in the middle (kill -9, out of memory) is removed by `sweepScratch`, which
 * every start and every new folder runs, so nothing outlives the process that made it.
 */
export const SCRATCH_KINDS = ['dataset', 'vdp'] as const;
export type ScratchKind = (typeof SCRATCH_KINDS)[number];

const NAME = new RegExp(`^(?:${SCRATCH_KINDS.join('|')})-(\\d+)-`);

/** Removes the scratch folders of processes no longer alive; answers how many. */
export async function sweepScratch(tmp: string = os.tmpdir()): Promise<number> {
  let removed = 0;
  for (const entry of await readdir(tmp).catch(() => [] as string[])) {
    const pid = NAME.exec(entry)?.[1];
    if (!pid || Number(pid) === process.pid || processAlive(Number(pid))) continue;
    await rm(path.join(tmp, entry), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** A new scratch folder of this process (after sweeping what dead ones left). */
export async function scratchFolder(kind: ScratchKind): Promise<string> {
  const tmp = os.tmpdir();
  await sweepScratch(tmp);
  return mkdtemp(path.join(tmp, `${kind}-${process.pid}-`));
}

/** `use` given a new scratch folder, removed however `use` ends. */
export async function inScratchFolder<T>(
  kind: ScratchKind,
  use: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = await scratchFolder(kind);
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

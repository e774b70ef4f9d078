import { readFileSync } from 'node:fs';

/** A process and every process below it, now. */
export function descendants(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const p = out[i]!;
    try {
      for (const task of readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').split(' '))
        if (task) out.push(Number(task));
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

const rssKiB = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

/** A process's resident memory now, MiB (0 once it ended). */
export const rssMiB = (pid: number) => rssKiB(pid) / 1024;

/** The resident memory of a process and all its descendants now, and the process's own, MiB. */
export function treeRss(pid: number): { totalMiB: number; mainMiB: number; processes: number } {
  const pids = descendants(pid);
  const sizes = pids.map(rssKiB);
  return {
    totalMiB: sizes.reduce((a, b) => a + b, 0) / 1024,
    mainMiB: (sizes[0] ?? 0) / 1024,
    processes: pids.length,
  };
}

/**
 * Samples the resident memory of a process and all its descendants (the service and its
 * image processes) every `everyMs`, and answers the largest sum seen, with the main
 * process's share at that moment: what the machine had to hold at once, where the sum
 * of each process's own peak (VmHWM) counts peaks that never met.
 */
export function sampleTreeMemory(pid: number, everyMs = 100) {
  let peak = { totalMiB: 0, mainMiB: 0, processes: 0 };
  const sample = () => {
    const now = treeRss(pid);
    if (now.totalMiB > peak.totalMiB) peak = now;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

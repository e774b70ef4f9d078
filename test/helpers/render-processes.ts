import { readdirSync, readFileSync } from 'node:fs';

/** This process's render processes (image processes that warm up for renders). */
export function renderProcesses(): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8');
      return ppid === process.pid && env.includes('PROCESS_POOL_WARM_UP=warmUpRenders')
        ? [Number(entry)]
        : [];
    } catch {
      return [];
    }
  });
}

import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** A process's or thread's name and CPU seconds (user + system), from its stat file. */
function readStat(path: string): { name: string; seconds: number } {
  const stat = readFileSync(path, 'utf8');
  // the name is in parentheses and may hold spaces; the fields after it are plain
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { name, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND };
}

/** CPU seconds (user + system) each process has used so far, by pid, with its name. */
export function cpuSnapshot(): Map<number, { name: string; seconds: number }> {
  const out = new Map<number, { name: string; seconds: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      out.set(Number(entry), readStat(`/proc/${entry}/stat`));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/**
 * Where the CPU went between two snapshots: the named processes by pid, every other by
 * its name (postgres, temporal, ...), largest first.
 */
export function cpuSpent(
  before: ReturnType<typeof cpuSnapshot>,
  after: ReturnType<typeof cpuSnapshot>,
  named: Record<string, number | undefined>,
): [string, number][] {
  const byPid = new Map(Object.entries(named).map(([label, pid]) => [pid, label]));
  const totals = new Map<string, number>();
  for (const [pid, a] of after) {
    const spent = a.seconds - (before.get(pid)?.seconds ?? 0);
    if (spent <= 0) continue;
    const label = byPid.get(pid) ?? a.name;
    totals.set(label, (totals.get(label) ?? 0) + spent);
  }
  return [...totals].sort((x, y) => y[1] - x[1]);
}

/** CPU seconds each thread of a process has used so far, summed by thread name. */
export function threadSnapshot(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const { name: named, seconds } = readStat(`/proc/${pid}/task/${tid}/stat`);
      const name = tid === String(pid) ? 'main thread' : named;
      out.set(name, (out.get(name) ?? 0) + seconds);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** `name seconds, ...` of what each kind of thread used between two thread snapshots. */
export function threadsSpent(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const)
    .filter(([, s]) => s >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, s]) => `${name} ${s.toFixed(1)} s`)
    .join(', ');
}

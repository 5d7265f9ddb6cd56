import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time spent by processes, from /proc (Linux). Throughput on a shared 2-core machine moves
 * with whatever else runs; CPU time per request barely does, so the report shows both.
 */

/** Linux reports times in USER_HZ ticks, 100 per second on every mainstream kernel. */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  parentPid: number;
  /** Own user + system time, plus that of children it has already reaped. */
  ticks: number;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited meanwhile
  }
  // The command name (field 2) may contain spaces; every field after it is numeric.
  const fields = text
    .slice(text.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const [utime, stime, cutime, cstime] = [fields[11]!, fields[12]!, fields[13]!, fields[14]!];
  return { parentPid: fields[1]!, ticks: utime + stime + cutime + cstime };
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** CPU seconds used so far by `rootPid` and all its live descendants (and the reaped ones). */
export function processTreeCpuSeconds(rootPid: number): number {
  const stats = new Map<number, ProcStat>();
  for (const pid of allPids()) {
    const stat = readStat(pid);
    if (stat) stats.set(pid, stat);
  }
  const inTree = new Set([rootPid]);
  let ticks = 0;
  // Parents have lower pids than their children except after pid wrap-around; iterate to a fixpoint.
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (!inTree.has(pid) && inTree.has(stat.parentPid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  for (const pid of inTree) ticks += stats.get(pid)?.ticks ?? 0;
  return ticks / TICKS_PER_SECOND;
}

/** The pid of the one process whose command line contains every fragment, if any. */
export function findPid(...fragments: string[]): number | undefined {
  for (const pid of allPids()) {
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (fragments.every((fragment) => commandLine.includes(fragment))) return pid;
    } catch {
      // exited meanwhile
    }
  }
  return undefined;
}

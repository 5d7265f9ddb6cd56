import { readFileSync } from 'node:fs';

/** Resident memory of a process from /proc (Linux), in MiB: now, and the highest it has been. */
export interface ResidentMemory {
  rssMiB: number;
  peakRssMiB: number;
}

export function residentMemory(pid: number): ResidentMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(match[1]) / 1024;
  };
  return { rssMiB: kib('VmRSS'), peakRssMiB: kib('VmHWM') };
}

import { readFileSync } from 'node:fs';
import { scrapeMetrics, type HasMetricsUrl } from '../../scripts/test/metrics.js';

/** Resident memory of a process from /proc (Linux), in MiB: now, and the highest it has been. */
export interface ResidentMemory {
  rssMiB: number;
  peakRssMiB: number;
}

/** Where a Node process's memory is, from its prom-client default metrics, in MiB. */
export interface NodeMemory {
  /** Live and not yet collected JavaScript objects, and what V8 reserved for them. */
  heapUsedMiB: number;
  heapTotalMiB: number;
  /** Memory held outside the V8 heap for JavaScript objects: Buffers (the cached bodies). */
  externalMiB: number;
}

const NODE_MEMORY_METRICS = {
  heapUsedMiB: 'nodejs_heap_size_used_bytes',
  heapTotalMiB: 'nodejs_heap_size_total_bytes',
  externalMiB: 'nodejs_external_memory_bytes',
} as const;

export async function nodeMemory(target: HasMetricsUrl): Promise<NodeMemory> {
  const text = await scrapeMetrics(target);
  const mib = (metric: string) => {
    const match = new RegExp(`^${metric} (\\S+)$`, 'm').exec(text);
    if (!match) throw new Error(`no ${metric} in ${target.metricsUrl}`);
    return Number(match[1]) / 1024 ** 2;
  };
  const entries = Object.entries(NODE_MEMORY_METRICS).map(([field, metric]) => [field, mib(metric)]);
  return Object.fromEntries(entries) as unknown as NodeMemory;
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

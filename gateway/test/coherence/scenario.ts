// One coherence run: the clients for a fixed time, the planned faults injected while they run,
// then the checker's verdict over the whole history, with everything a reader of a failure needs.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Random } from '../../bench/random.js';
import { checkHistory, formatImpossibleRead, formatStaleRead, formatSummary, staleByLabel, type CoherenceReport } from './checker.js';
import { formatFaults, injectFaults, type FaultRecord, type FaultTargets, type PlannedFault } from './faults.js';
import { HistoryRecorder, now, type OperationRecord } from './history.js';
import { runWorkload, type Endpoint } from './workload.js';

export interface ScenarioOptions {
  /** Names the run in the slogans it writes. */
  name: string;
  random: Random;
  /** Every product's slogan before the run. */
  initial: ReadonlyMap<number, string>;
  gateways: readonly Endpoint[];
  writeToken: string;
  plan: readonly PlannedFault[];
  targets: FaultTargets;
  /** How fast the memory-pressure fault writes junk. */
  junkBytesPerSecond: number;
  /** The clients run at least this long, and on for `tailMs` after the last fault. */
  durationMs: number;
  /** Before the first fault: caches fill up. */
  warmupMs: number;
  tailMs: number;
  writers: number;
  readers: number;
  /** A writer's pause between writes (workload.ts has a shop's pace by default). */
  writePauseMs?: readonly [number, number];
  /** Writers straight into Postgres, besides the gateway writers. */
  sql?: { databaseUrl: string; writers: number };
}

export interface ScenarioResult {
  report: CoherenceReport;
  operations: OperationRecord[];
  faults: FaultRecord[];
  /** Time 0 of the run. */
  origin: number;
  wallMs: number;
}

export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const recorder = new HistoryRecorder();
  const stop = new AbortController();
  const workload = runWorkload(
    {
      gateways: options.gateways,
      products: options.initial.size,
      writers: options.writers,
      sql: options.sql,
      readers: options.readers,
      writePauseMs: options.writePauseMs,
      writeToken: options.writeToken,
      run: options.name,
      random: options.random,
      recorder,
    },
    stop.signal,
  );
  let faults: FaultRecord[];
  try {
    await sleep(options.warmupMs);
    faults = await injectFaults(options.plan, options.targets, options.junkBytesPerSecond);
    const ranMs = now() - recorder.origin;
    await sleep(Math.max(options.tailMs, options.durationMs - ranMs));
  } finally {
    stop.abort();
    await workload;
  }
  return {
    report: checkHistory(options.initial, recorder.operations, options.targets.primaryAddress?.outages),
    operations: recorder.operations,
    faults,
    origin: recorder.origin,
    wallMs: now() - recorder.origin,
  };
}

/** How many stale and impossible reads a description lists one by one. */
const LISTED = 15;

/** The run as a report: summary, faults, and the first stale and impossible reads. */
export function describeScenario({ report, faults, origin, wallMs }: ScenarioResult): string {
  const lines = [
    `coherence summary (${(wallMs / 1000).toFixed(1)} s): ${formatSummary(report.summary)}`,
    'faults:',
    formatFaults(faults, origin),
  ];
  if (report.stale.length > 0) {
    lines.push(`stale reads by kind: ${staleByLabel(report.stale)}`, `first ${Math.min(LISTED, report.stale.length)} stale reads:`);
    const first = [...report.stale].sort((a, b) => a.read.start - b.read.start).slice(0, LISTED);
    lines.push(...first.map((stale) => `  ${formatStaleRead(stale, origin)}`));
  }
  if (report.impossible.length > 0) {
    lines.push(`first ${Math.min(LISTED, report.impossible.length)} impossible reads:`);
    lines.push(...report.impossible.slice(0, LISTED).map((impossible) => `  ${formatImpossibleRead(impossible, origin)}`));
  }
  return lines.join('\n');
}

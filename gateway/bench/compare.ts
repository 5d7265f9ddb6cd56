import { loadavg } from 'node:os';
import { processTreeCpuSeconds } from './cpu-usage.js';
import type { Cell, TargetName, Workload } from './report.js';
import type { ServerProcess } from './targets/server-process.js';
import { runWrk, type LoadResult, type LoadSettings } from './wrk.js';

export interface PlanFile {
  file: string;
  size: number;
}

/** One target in a comparison: a server wrk replays plans against, or a load that drives itself. */
export type Contender = ReplayedContender | DrivenContender;

/** A server under wrk, replaying plans. */
export interface ReplayedContender {
  target: TargetName;
  server: ServerProcess;
  warmup: PlanFile;
  /** One plan per round: disjoint slices for cold workloads, so no id is asked for twice. */
  rounds: PlanFile[];
  cold: boolean;
  /** Its measured time, when not the run's `--duration`: a variant's process measures its share of its side's. */
  durationSeconds?: number;
}

/**
 * A load with no server of ours in it (pgbench on Postgres: the ceiling): it draws its own
 * requests, and only Postgres and Redis have CPU to count.
 */
export interface DrivenContender {
  target: TargetName;
  drive(seconds: number): Promise<LoadResult>;
}

const isReplayed = (contender: Contender): contender is ReplayedContender => 'server' in contender;

export interface CompareSettings {
  load: LoadSettings;
  warmupSeconds: number;
  /**
   * Postgres (the primary, and a read replica when the run has one) and Redis: whatever CPU they
   * spend during a round is on behalf of its target.
   */
  backendPids: { postgres: readonly number[]; redis: number };
  /** Resolves once Postgres runs no query of an earlier target; says how long that took (ms). */
  databaseIdle: () => Promise<number>;
  log: (message: string) => void;
}

interface RoundResult extends LoadResult {
  wrapped: boolean;
  machineLoad: number;
  cpuSeconds: CpuSplit;
}

/** CPU seconds of the target's own process, of Postgres (every server) and of Redis. */
interface CpuSplit {
  server: number;
  postgres: number;
  redis: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/**
 * Measures the contenders of one workload in alternating rounds (A B, B A, A B …), so both see
 * the same share of whatever else the machine is doing; the round order flips to cancel drift.
 * RPS is total requests over total time; latency percentiles are the median of the rounds'.
 */
export async function compareTargets(workload: Workload, contenders: Contender[], settings: CompareSettings): Promise<Cell[]> {
  const roundCount = contenders.find(isReplayed)!.rounds.length;
  const roundSeconds = (contender: Contender) =>
    Math.max(1, Math.round(((isReplayed(contender) && contender.durationSeconds) || settings.load.durationSeconds) / roundCount));
  const load = (contender: Contender, plan: (replayed: ReplayedContender) => PlanFile, seconds: number) =>
    isReplayed(contender)
      ? runWrk(contender.server.baseUrl, plan(contender).file, { ...settings.load, durationSeconds: seconds })
      : contender.drive(seconds);
  for (const contender of contenders) {
    settings.log(`${workload} × ${contender.target}: warm-up ${settings.warmupSeconds} s`);
    if (isReplayed(contender)) contender.server.assertAlive();
    await load(contender, ({ warmup }) => warmup, settings.warmupSeconds);
  }
  const results = new Map<Contender, RoundResult[]>(contenders.map((c) => [c, []]));
  const cpuNow = (contender: Contender): CpuSplit => ({
    server: isReplayed(contender) ? processTreeCpuSeconds(contender.server.pid) : 0,
    postgres: settings.backendPids.postgres.reduce((sum, pid) => sum + processTreeCpuSeconds(pid), 0),
    redis: processTreeCpuSeconds(settings.backendPids.redis),
  });
  for (let round = 0; round < roundCount; round += 1) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) {
      const waitedMs = await settings.databaseIdle();
      if (waitedMs > 0) settings.log(`${workload} × ${contender.target}: waited ${waitedMs} ms for an earlier target's queries`);
      const machineLoad = loadavg()[0]!;
      const before = cpuNow(contender);
      const result = await load(contender, ({ rounds }) => rounds[round]!, roundSeconds(contender));
      const after = cpuNow(contender);
      if (isReplayed(contender)) contender.server.assertAlive();
      results.get(contender)!.push({
        ...result,
        wrapped: isReplayed(contender) && contender.cold && result.requests > contender.rounds[round]!.size,
        machineLoad,
        cpuSeconds: {
          server: after.server - before.server,
          postgres: after.postgres - before.postgres,
          redis: after.redis - before.redis,
        },
      });
      settings.log(
        `${workload} × ${contender.target} round ${round + 1}/${roundCount}: ${Math.round(result.rps)} RPS, ` +
          `p95 ${result.p95Ms.toFixed(2)} ms, ${result.errors} errors (load average ${machineLoad.toFixed(1)})`,
      );
    }
  }
  return contenders.map((contender) => {
    const rounds = results.get(contender)!;
    const requests = rounds.reduce((sum, round) => sum + round.requests, 0);
    const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0);
    const microsPerRequest = (part: keyof CpuSplit) =>
      (rounds.reduce((sum, round) => sum + round.cpuSeconds[part], 0) * 1e6) / Math.max(1, requests);
    return {
      workload,
      target: contender.target,
      requests,
      seconds,
      rps: requests / seconds,
      p50Ms: median(rounds.map((round) => round.p50Ms)),
      p95Ms: median(rounds.map((round) => round.p95Ms)),
      p99Ms: median(rounds.map((round) => round.p99Ms)),
      errors: rounds.reduce((sum, round) => sum + round.errors, 0),
      errorDetail: rounds
        .map((round) => round.errorDetail)
        .reduce((total, detail) => ({
          connectErrors: total.connectErrors + detail.connectErrors,
          readErrors: total.readErrors + detail.readErrors,
          writeErrors: total.writeErrors + detail.writeErrors,
          timeouts: total.timeouts + detail.timeouts,
          statusErrors: total.statusErrors + detail.statusErrors,
        })),
      rounds: rounds.length,
      planWrapped: rounds.some((round) => round.wrapped),
      machineLoad: Math.max(...rounds.map((round) => round.machineLoad)),
      cpuMicrosPerRequest: {
        server: microsPerRequest('server'),
        postgres: microsPerRequest('postgres'),
        redis: microsPerRequest('redis'),
      },
    };
  });
}

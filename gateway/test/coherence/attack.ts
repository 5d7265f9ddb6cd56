// What every coherence run shares: the seed, the gateways' settings, and the attack itself (the
// clients, the planned faults, and the verdict over the whole history).
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { Random } from '../../bench/random.js';
import { metricValue, WRITE_TOKEN } from '../support/gateway.js';
import { currentSlogans } from './catalog.js';
import { formatPlan, planFaults, type FaultKind, type FaultTargets } from './faults.js';
import type { GatewayProcess } from './gateway-process.js';
import { describeScenario, runScenario, type ScenarioResult } from './scenario.js';

/**
 * `COHERENCE_SEED=<n>` replays a run's schedule (its seed is printed first);
 * `COHERENCE_HISTORY=<file>` writes the whole history as JSON, to read a failure at leisure.
 */
export const SEED = Number(process.env.COHERENCE_SEED ?? randomInt(2 ** 31));
export const PRODUCTS = 2_000;
/** Small enough that the cold products live in Redis only, not in a gateway's memory. */
export const MEMORY_ENTRIES = 64;
const RUN = { warmupMs: 3_000, tailMs: 5_000, writers: 3, readers: 12 };

/** Settings of every gateway: a TTL long enough that staleness cannot hide behind it. */
export const gatewayEnv = (databaseUrl: string, redis: Record<string, string>, memoryEntries = MEMORY_ENTRIES): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  ...redis,
  WRITE_TOKEN,
  CACHE_TTL_SECONDS: '300',
  CACHE_MAX_ENTRIES: String(memoryEntries),
  LOG_LEVEL: 'warn',
});

/** A counter summed over the gateways, as their /metrics say now. */
export async function sumOver(gateways: readonly GatewayProcess[], series: string): Promise<number> {
  const texts = await Promise.all(gateways.map(async (gateway) => (await fetch(gateway.metricsUrl)).text()));
  return texts.reduce((sum, text) => sum + metricValue(text, series), 0);
}

export interface Attack {
  random: Random;
  faults: FaultKind[];
  gateways: GatewayProcess[];
  targets: Omit<FaultTargets, 'gateways'>;
  databaseUrl: string;
  /** How long the clients run at least. */
  durationMs: number;
  /** Junk written a second under the memory-pressure fault. */
  junkBytesPerSecond?: number;
  /** More writers, or writers without pauses, than a shop's pace (RUN). */
  writers?: number;
  writePauseMs?: readonly [number, number];
  /** Fewer readers than RUN's, where they would only queue behind one another. */
  readers?: number;
  /** Writers straight into Postgres on `databaseUrl` (change capture, rule 11), besides the gateway writers. */
  sqlWriters?: number;
}

/** Runs the clients with the planned faults and asserts the verdict: every fault happened, 0 stale reads. */
export async function attack({ random, faults, gateways, targets, databaseUrl, durationMs, ...run }: Attack): Promise<ScenarioResult> {
  const plan = planFaults(random, faults, gateways.length);
  console.log(`coherence seed ${SEED} (COHERENCE_SEED=${SEED} replays it); faults: ${formatPlan(plan) || 'none'}`);
  const result = await runScenario({
    ...RUN,
    writers: run.writers ?? RUN.writers,
    readers: run.readers ?? RUN.readers,
    writePauseMs: run.writePauseMs,
    durationMs,
    name: `seed ${SEED}`,
    random,
    initial: await currentSlogans(databaseUrl),
    gateways,
    writeToken: WRITE_TOKEN,
    plan,
    targets: { ...targets, gateways },
    junkBytesPerSecond: run.junkBytesPerSecond ?? 0,
    sql: run.sqlWriters ? { databaseUrl, writers: run.sqlWriters } : undefined,
  });
  const description = describeScenario(result);
  if (process.env.COHERENCE_HISTORY) {
    await writeFile(
      process.env.COHERENCE_HISTORY,
      JSON.stringify({ seed: SEED, origin: result.origin, faults: result.faults, operations: result.operations }),
    );
  }
  console.log(description);
  const { summary } = result.report;
  for (const fault of result.faults) assert.ok(fault.happened, `${fault.kind} did not happen: ${fault.evidence}\n${description}`);
  for (const gateway of gateways) assert.ok(gateway.running, `${gateway.name} died during the run\n${gateway.logTail()}\n${description}`);
  // A run whose reads no acknowledged write constrained could not have failed.
  assert.ok(summary.constrainedObservations > 0, `no read came after an acknowledged write of what it read\n${description}`);
  if (run.sqlWriters) {
    const sqlCommits = result.operations.filter((operation) => operation.kind === 'write' && operation.outcome === 'committed').length;
    console.log(`writes committed in SQL (held to the capture bound): ${sqlCommits}`);
    assert.ok(sqlCommits > 0, `no write was committed in SQL\n${description}`);
  }
  assert.equal(summary.impossible, 0, `reads returned values no write explains\n${description}`);
  // Their warnings (a claim of the change log that failed, Redis errors) say where an announcement waited.
  const logs =
    summary.stale === 0 ? '' : gateways.map((gateway) => `\n${gateway.name}, its last log lines:\n${gateway.logTail()}`).join('');
  assert.equal(summary.stale, 0, `reads returned data older than a write acknowledged before they began\n${description}${logs}`);
  return result;
}

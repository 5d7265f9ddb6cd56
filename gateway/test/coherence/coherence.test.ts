import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { startRedis, type RedisServer } from '../../../scripts/test/redis.js';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '../../../scripts/test/redis-sentinel.js';
import { seededRandom, type Random } from '../../bench/random.js';
import { configSchema } from '../../src/config.js';
import { WRITE_TOKEN } from '../support/gateway.js';
import { createCoherenceCatalog, currentSlogans } from './catalog.js';
import { formatPlan, planFaults, type FaultKind, type FaultTargets } from './faults.js';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';
import { describeScenario, runScenario } from './scenario.js';

/**
 * The promise of gateway/README.md ("Consistency: when a write becomes visible"), attacked:
 * two gateway processes on one Postgres and one Redis, writers and readers through both, and
 * Redis evicting, restarted, flushed and frozen, gateways frozen and killed meanwhile. Every
 * read is judged against the writes acknowledged before it began; the bound is 0.
 * `COHERENCE_SEED=<n>` replays a run's schedule (its seed is printed first);
 * `COHERENCE_HISTORY=<file>` writes the whole history as JSON, to read a failure at leisure.
 */
const SEED = Number(process.env.COHERENCE_SEED ?? randomInt(2 ** 31));
const PRODUCTS = 2_000;
/** Small enough that the cold products live in Redis only, not in a gateway's memory. */
const MEMORY_ENTRIES = 64;
/** Redis's memory: the catalog's keys fit (3–6 MiB with Redis's own) until junk arrives. */
const REDIS_MAXMEMORY = '12mb';
/**
 * Junk at a sixth of `maxmemory` a second: once full, a key untouched for a few seconds goes. A
 * cold product's response, read every few seconds, outlives the keys written with it (tags),
 * which only its next write touches.
 */
const JUNK_BYTES_PER_SECOND = 2 * 1024 ** 2;
const RUN = { warmupMs: 3_000, tailMs: 5_000, writers: 3, readers: 12 };

const STANDALONE_FAULTS: FaultKind[] = [
  'redis memory pressure',
  'redis restarted empty',
  'redis flushed',
  'redis frozen',
  'gateway frozen',
  'gateway restarted',
];

/** Settings of every gateway: a TTL long enough that staleness cannot hide behind it. */
const gatewayEnv = (databaseUrl: string, redis: Record<string, string>): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  ...redis,
  WRITE_TOKEN,
  CACHE_TTL_SECONDS: '300',
  CACHE_MAX_ENTRIES: String(MEMORY_ENTRIES),
  LOG_LEVEL: 'warn',
  // Two gateways on one host: their metrics listeners must not both want the default port.
  METRICS_PORT: '0',
});

interface Attack {
  random: Random;
  faults: FaultKind[];
  gateways: GatewayProcess[];
  targets: Omit<FaultTargets, 'gateways'>;
  databaseUrl: string;
  /** How long the clients run at least. */
  durationMs: number;
}

async function attack({ random, faults, gateways, targets, databaseUrl, durationMs }: Attack) {
  const plan = planFaults(random, faults, gateways.length);
  console.log(`coherence seed ${SEED} (COHERENCE_SEED=${SEED} replays it); faults: ${formatPlan(plan)}`);
  const result = await runScenario({
    ...RUN,
    durationMs,
    name: `seed ${SEED}`,
    random,
    initial: await currentSlogans(databaseUrl),
    gateways,
    writeToken: WRITE_TOKEN,
    plan,
    targets: { ...targets, gateways },
    junkBytesPerSecond: JUNK_BYTES_PER_SECOND,
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
  assert.equal(summary.impossible, 0, `reads returned values no write explains\n${description}`);
  assert.equal(summary.stale, 0, `reads returned data older than a write acknowledged before they began\n${description}`);
  return result;
}

describe('coherence: no read returns data older than a write acknowledged before it began', { timeout: 600_000 }, () => {
  describe('standalone Redis: evicting under allkeys-lru, restarted empty, flushed, frozen; a gateway frozen, one killed', () => {
    let redis: RedisServer;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      redis = await startRedis({ maxmemory: REDIS_MAXMEMORY, maxmemoryPolicy: 'allkeys-lru', notifyKeyspaceEvents: 'Ee' });
      databaseUrl = await createCoherenceCatalog(PRODUCTS);
      gateways = await Promise.all(
        ['gateway-a', 'gateway-b'].map((name) => startGatewayProcess(name, gatewayEnv(databaseUrl, { REDIS_URL: redis.url }))),
      );
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      redis.thaw();
      await redis.stop();
    });

    it('0 stale reads', async () => {
      await attack({
        random: seededRandom(SEED),
        faults: STANDALONE_FAULTS,
        gateways,
        targets: { redis },
        databaseUrl,
        durationMs: 60_000,
      });
    });
  });

  describe('Redis with Sentinel: the primary killed under load', () => {
    const sentinelSupport = 'REDIS_SENTINELS' in configSchema.shape && 'REDIS_SENTINEL_MASTER' in configSchema.shape;
    let sentinels: RedisSentinelGroup | undefined;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      if (!sentinelSupport) return;
      sentinels = await startRedisSentinelGroup();
      databaseUrl = await createCoherenceCatalog(PRODUCTS);
      const env = gatewayEnv(databaseUrl, { REDIS_SENTINELS: sentinels.sentinels, REDIS_SENTINEL_MASTER: sentinels.masterName });
      gateways = await Promise.all(['gateway-a', 'gateway-b'].map((name) => startGatewayProcess(name, env)));
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      await sentinels?.stop();
    });

    it(
      '0 failed reads, 0 stale reads',
      { skip: sentinelSupport ? false : 'the gateway does not take REDIS_SENTINELS / REDIS_SENTINEL_MASTER yet (gateway/src/config.ts)' },
      async () => {
        // One fault, whose failover and rejoin take most of the run.
        const { report } = await attack({
          random: seededRandom(SEED + 1),
          faults: ['redis primary killed'],
          gateways,
          targets: { sentinels },
          databaseUrl,
          durationMs: 40_000,
        });
        assert.equal(report.summary.readsFailed, 0, 'reads failed while Redis failed over');
      },
    );
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../../../scripts/test/postgres-replication.js';
import { startRedis, type RedisServer } from '../../../scripts/test/redis.js';
import { startLatencyProxy, type LatencyProxy } from '../../../scripts/test/latency-proxy.js';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '../../../scripts/test/redis-sentinel.js';
import { seededRandom } from '../../bench/random.js';
import { attack, gatewayEnv, PRODUCTS, SEED, sumOver } from './attack.js';
import { createCoherenceCatalog } from './catalog.js';
import type { FaultKind } from './faults.js';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';

/**
 * The promise of gateway/README.md ("Consistency: when a write becomes visible"), attacked with
 * the faults the protocol was built against: two gateway processes on one Postgres and one
 * Redis, writers and readers through both, and Redis evicting, restarted, flushed and frozen,
 * gateways frozen and killed meanwhile; then Redis failing over under Sentinel; then reads on a
 * streaming replica whose replay stops and starts. Every read is judged against the writes
 * acknowledged before it began; the bound is 0. The environment's own faults (asynchronous
 * commit, slow statements, pauses, bursts, clock steps) are environment.test.ts's.
 */
/** Redis's memory: the catalog's keys fit (3–6 MiB with Redis's own) until junk arrives. */
const REDIS_MAXMEMORY = '12mb';
/**
 * Junk at a sixth of `maxmemory` a second: once full, a key untouched for a few seconds goes. A
 * cold product's response, read every few seconds, outlives the keys written with it (tags),
 * which only its next write touches.
 */
const JUNK_BYTES_PER_SECOND = 2 * 1024 ** 2;
/** Writers straight into Postgres (change capture, rule 11), besides the gateway writers. */
const SQL_WRITERS = 1;

const STANDALONE_FAULTS: FaultKind[] = [
  'redis memory pressure',
  'redis restarted empty',
  'redis flushed',
  'redis frozen',
  'gateway frozen',
  'gateway restarted',
];

/** Paused replay, at random moments, between a Redis restart and a Redis freeze. */
const REPLICA_FAULTS: FaultKind[] = [
  'replica replay paused',
  'replica replay paused',
  'replica replay paused',
  'redis restarted empty',
  'redis frozen',
];
/**
 * Longer than any pause (faults.ts: at most 3 s): the lagging replica stays in the rotation, so
 * only rule 8 (a replica's answer is used only if it replayed the writes it depends on) stands
 * between a paused replica and a stale read.
 */
const REPLICA_MAX_LAG_MS = 10_000;

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
        sqlWriters: SQL_WRITERS,
        junkBytesPerSecond: JUNK_BYTES_PER_SECOND,
      });
    });
  });

  describe('Redis with Sentinel: the primary killed under load, with Postgres slowed and gateways paused around the failover', () => {
    let sentinels: RedisSentinelGroup;
    let latency: LatencyProxy;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      sentinels = await startRedisSentinelGroup();
      databaseUrl = await createCoherenceCatalog(PRODUCTS);
      const direct = new URL(databaseUrl);
      latency = await startLatencyProxy({ host: direct.hostname, port: Number(direct.port) });
      const slowed = new URL(databaseUrl);
      slowed.port = String(latency.port);
      const env = gatewayEnv(slowed.toString(), { REDIS_SENTINELS: sentinels.sentinels, REDIS_SENTINEL_MASTER: sentinels.masterName });
      gateways = await Promise.all(['gateway-a', 'gateway-b'].map((name) => startGatewayProcess(name, env)));
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      await Promise.allSettled([latency?.close(), sentinels?.stop()]);
    });

    it('0 failed reads, 0 stale reads', async () => {
      // The failover and rejoin take most of the run; the environment's faults come before and after it.
      const { report } = await attack({
        random: seededRandom(SEED + 1),
        faults: ['postgres slowed', 'gateway paused', 'redis primary killed', 'gateway paused', 'postgres slowed'],
        gateways,
        targets: { sentinels, latency },
        databaseUrl,
        durationMs: 50_000,
        sqlWriters: SQL_WRITERS,
      });
      assert.equal(report.summary.readsFailed, 0, 'reads failed while Redis failed over');
    });
  });

  describe('a streaming replica behind both gateways: replay paused at random moments, Redis restarted and frozen', () => {
    let servers: ReplicatedPostgres | undefined;
    let redis: RedisServer | undefined;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      [servers, redis] = await Promise.all([startReplicatedPostgres({ replicas: 1 }), startRedis()]);
      const database = await servers.createDatabase('coherence');
      databaseUrl = await createCoherenceCatalog(PRODUCTS, servers.primary.urlFor(database));
      await servers.caughtUp();
      const env = {
        ...gatewayEnv(databaseUrl, { REDIS_URL: redis.url }),
        DATABASE_READ_URLS: servers.replicas[0]!.urlFor(database),
        DATABASE_READ_MAX_LAG_MS: String(REPLICA_MAX_LAG_MS),
      };
      gateways = await Promise.all(['gateway-a', 'gateway-b'].map((name) => startGatewayProcess(name, env)));
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      redis?.thaw();
      await Promise.allSettled([redis?.stop(), servers?.destroy()]);
    });

    it('0 stale reads, reads on the replica', async () => {
      const counted = (series: string) => sumOver(gateways, series);
      const replicaStatements = 'catalog_db_statements_total{target="replica-1"}';
      const behindWrites = 'catalog_db_replica_fallbacks_total{reason="behind_writes"}';
      const [replicaBefore, behindBefore] = [await counted(replicaStatements), await counted(behindWrites)];
      await attack({
        random: seededRandom(SEED + 2),
        faults: REPLICA_FAULTS,
        gateways,
        targets: { redis, replication: servers },
        databaseUrl,
        durationMs: 30_000,
        sqlWriters: SQL_WRITERS,
      });
      // A run whose reads never reached the replica, or never found it behind a write, could not have failed.
      const replicaRead = (await counted(replicaStatements)) - replicaBefore;
      const reread = (await counted(behindWrites)) - behindBefore;
      console.log(`statements on the replica: ${replicaRead}; answers read again on the primary (behind_writes): ${reread}`);
      assert.ok(replicaRead > 0, 'no read ran on the replica');
      assert.ok(reread > 0, 'no replica answer was ever found behind a write');
    });
  });
});

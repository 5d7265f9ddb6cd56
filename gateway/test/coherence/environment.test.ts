import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { monotonicClockRateEnv } from '../../../scripts/test/clock-shims.js';
import { startBalancedAddress, type BalancedAddress } from '../../../scripts/test/balanced-address.js';
import { startLatencyProxy, type LatencyProxy } from '../../../scripts/test/latency-proxy.js';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../../../scripts/test/postgres-replication.js';
import { startRedis, type RedisServer } from '../../../scripts/test/redis.js';
import { waitFor } from '../../../scripts/test/wait.js';
import { seededRandom, type Random } from '../../bench/random.js';
import { attack, gatewayEnv, PRODUCTS, SEED, sumOver } from './attack.js';
import type { FaultKind } from './faults.js';
import { WRITE_TOKEN } from '../support/gateway.js';
import { createCoherenceCatalog } from './catalog.js';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.js';
import { nextProtocolSource, type NextProtocolSource } from './next-protocol.js';
import { Popularity } from './workload.js';
import { SERVING_SCHEMA } from '@catalog/contract';
import { Redis } from 'ioredis';
import pg from 'pg';
import { LEASE_MS } from '../../src/coherence/lease.js';
import { PRESENCE_MARGIN_MS, PRESENCE_MS } from '../../src/coherence/protocol-presence.js';
import { REDIS_PROTOCOLS_KEY } from '../../src/redis/keys.js';

/**
 * The promise of gateway/README.md ("Consistency: when a write becomes visible") under the
 * environment its argument assumes things of ("Assumptions"), each varied here rather than only
 * the faults the protocol was built against (coherence.test.ts): commits acknowledged before
 * they are durable (synchronous_commit=off), statements slowed while writes around them are
 * acknowledged, stop-the-world pauses, writers in a burst with no fault at all (where nothing
 * may reset), and Redis's wall clock stepped. Every read is judged against the writes
 * acknowledged before it began; the bound is 0.
 */
const REPLICA_MAX_LAG_MS = 10_000;
/**
 * Room for every response a run makes, in entries and bytes: nothing leaves a gateway's memory
 * but by invalidation (entries a write voided stay until met, and a burst leaves many).
 */
const ROOMY_MEMORY_ENTRIES = 50_000;
const ROOMY_MEMORY_BYTES = String(1024 ** 3);

/**
 * How fast gateway-b's monotonic clock runs in the slow run, against the real one (and gateway-a's):
 * 3% slow, inside the 5% the lease margin allows (gateway/README.md, "Assumptions").
 */
const SLOW_CLOCK_RATE = 0.97;
/**
 * The rolling update's clocks: gateway-a's runs fast and gateway-b's slow, 5.2 % apart, at the
 * edge of the assumption. gateway-b's beats and commits, timed slow, are judged by gateway-a's
 * fast clock when it counts gateway-b's protocol gone (README rule 12's 250 ms margin).
 */
const PROTOCOLS_CLOCK_RATES = { fast: 1.02, slow: 0.97 };

/**
 * The presence-edge run: gateway-b frozen right after a beat, alternately thawed just inside the
 * time its own slow clock lets it acknowledge a commit (this long before that time ends, by its
 * clock) and well past the time gateway-a's fast clock counts its protocol gone.
 */
const EDGE_ROUNDS = 6;
const INSIDE_MARGIN_BY_MS = 40;
const PAST_COUNT_BY_MS = 1_000;
/** gateway-a's renewals, at whose pace it sees beats (coherence/membership.ts). */
const RENEWAL_MS = 250;
/** gateway-b is frozen this long after its beat reached Redis: time to read the beat's answer, so its run holds that beat. */
const BEAT_ANSWERED_MS = 20;
/** The held UPDATE commits this long before gateway-b thaws. */
const COMMIT_BEFORE_THAW_MS = 60;
/** gateway-a read after each acknowledgement, for longer than any lease it held. */
const READ_AFTER_ACK_MS = 1_500;
/** Long enough for gateway-b's statement to wait out a freeze on a held row lock. */
const EDGE_STATEMENT_TIMEOUT_MS = 15_000;

/** How late gateway-b hears Redis's messages in the slow-clock run: past a writer's longest wait for it (a lease). */
const MESSAGES_LATE_MS = 1_300;
/** Writes in the slow-clock run, each alone: a clock that moves under a late listener denies it its lease. */
const LATE_ROUNDS = 8;
/** Long enough for gateway-b to catch up, renew and hold its lease again. */
const LEASE_SETTLES_MS = 2_000;

/** Features more on each written product in the slow run: its REST answer takes long to build. */
const HEAVY_FEATURES = 1_500;

/** The products a run's writers write (workload.ts: fixed by the catalog's size). */
const writtenProducts = (): number[] => new Popularity(PRODUCTS, seededRandom(0)).written;

const startGateways = (env: Record<string, string>) =>
  Promise.all(['gateway-a', 'gateway-b'].map((name) => startGatewayProcess(name, env)));

/** The in-process cache's hits, as a gateway's /metrics counts them. */
const MEMORY_HITS = 'catalog_cache_lookups_total{backend="memory",result="hit"}';

/** Fails unless the clock-rate shim is loaded in each gateway (a run whose clocks were not varied tested nothing). */
async function assertClockShimLoaded(gateways: readonly GatewayProcess[]): Promise<void> {
  for (const { name, pid } of gateways) {
    const maps = await readFile(`/proc/${pid}/maps`, 'utf8');
    assert.match(maps, /monotonic-clock-rate-\w+\.so/, `the clock-rate shim is not loaded in ${name}`);
  }
}

/** A product's slogan as `gateway` answers `/products/:id` now. */
async function sloganOf(gateway: GatewayProcess, product: number): Promise<string> {
  const response = await fetch(`${gateway.base}/products/${product}`);
  assert.equal(response.status, 200, `${gateway.name} /products/${product}`);
  return ((await response.json()) as { slogan: string }).slogan;
}

/** Every series of a counter summed, over the gateways: all its labels at once. */
async function counterTotal(gateways: readonly GatewayProcess[], name: string): Promise<number> {
  const texts = await Promise.all(gateways.map(async (gateway) => (await fetch(gateway.metricsUrl)).text()));
  return texts
    .flatMap((text) => text.split('\n'))
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

// Each run takes one to two minutes, one after another.
describe('coherence under the environment: what the argument assumes, varied', { timeout: 1_200_000 }, () => {
  describe('asynchronous commit: synchronous_commit=off on the primary, a streaming replica read by both gateways', () => {
    let servers: ReplicatedPostgres | undefined;
    let redis: RedisServer | undefined;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      [servers, redis] = await Promise.all([startReplicatedPostgres({ replicas: 1 }), startRedis()]);
      await servers.primary.query('postgres', 'ALTER SYSTEM SET synchronous_commit = off');
      await servers.primary.query('postgres', 'SELECT pg_reload_conf()');
      const database = await servers.createDatabase('coherence');
      databaseUrl = await createCoherenceCatalog(PRODUCTS, servers.primary.urlFor(database));
      await servers.caughtUp();
      gateways = await startGateways({
        ...gatewayEnv(databaseUrl, { REDIS_URL: redis.url }),
        DATABASE_READ_URLS: servers.replicas[0]!.urlFor(database),
        DATABASE_READ_MAX_LAG_MS: String(REPLICA_MAX_LAG_MS),
      });
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      await Promise.allSettled([redis?.stop(), servers?.destroy()]);
    });

    it('0 stale reads, reads on the replica', async () => {
      const [setting] = await servers!.primary.query<{ synchronous_commit: string }>('postgres', 'SHOW synchronous_commit');
      assert.equal(setting?.synchronous_commit, 'off', 'the primary does not commit asynchronously');
      const replicaStatements = 'catalog_db_statements_total{target="replica-1"}';
      const before = await sumOver(gateways, replicaStatements);
      await attack({
        random: seededRandom(SEED + 10),
        faults: ['replica replay paused', 'gateway paused', 'replica replay paused'],
        gateways,
        targets: { replication: servers },
        databaseUrl,
        durationMs: 30_000,
      });
      assert.ok((await sumOver(gateways, replicaStatements)) > before, 'no read ran on the replica');
    });
  });

  // One replica URL in front of two streaming replicas, as a CloudNativePG `-ro` Service or a
  // PgBouncer pool over several replicas is: each connection reaches either. The replay of the first
  // is paused at random moments while the other streams on.
  describe('one replica URL in front of two replicas (a load-balanced address), read by both gateways', () => {
    let servers: ReplicatedPostgres | undefined;
    let redis: RedisServer | undefined;
    let balanced: BalancedAddress | undefined;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      [servers, redis] = await Promise.all([startReplicatedPostgres({ replicas: 2 }), startRedis()]);
      const database = await servers.createDatabase('coherence');
      databaseUrl = await createCoherenceCatalog(PRODUCTS, servers.primary.urlFor(database));
      await servers.caughtUp();
      balanced = await startBalancedAddress(servers.replicas.map((replica) => replica.port));
      const viaBalanced = new URL(servers.replicas[0]!.urlFor(database));
      viaBalanced.port = String(balanced.port);
      gateways = await startGateways({
        ...gatewayEnv(databaseUrl, { REDIS_URL: redis.url }),
        DATABASE_READ_URLS: viaBalanced.toString(),
        DATABASE_READ_MAX_LAG_MS: String(REPLICA_MAX_LAG_MS),
      });
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      await Promise.allSettled([balanced?.close(), redis?.stop(), servers?.destroy()]);
    });

    it('0 stale reads, reads on the replica, each gateway reaching both servers', async () => {
      const replicaStatements = 'catalog_db_statements_total{target="replica-1"}';
      const before = await sumOver(gateways, replicaStatements);
      await attack({
        random: seededRandom(SEED + 17),
        faults: ['replica replay paused', 'gateway paused', 'replica replay paused', 'gateway frozen', 'replica replay paused'],
        gateways,
        targets: { replication: servers },
        databaseUrl,
        durationMs: 40_000,
      });
      assert.ok((await sumOver(gateways, replicaStatements)) > before, 'no read ran on the replica');
      assert.ok(
        balanced!.connections.every((count) => count > 0),
        `the address dealt connections to one server only: ${balanced!.connections.join(' / ')}`,
      );
    });
  });

  /**
   * A primary with two streaming replicas, both read by two gateways, which reach the primary
   * (and so does the run's SQL writer) by one address the failover cuts and moves; the failover
   * is the one `failover` draws from the run's random.
   */
  const describeFailover = (title: string, seedOffset: number, failover: (random: Random) => FaultKind) =>
    describe(title, () => {
      let servers: ReplicatedPostgres | undefined;
      let redis: RedisServer | undefined;
      let primaryAddress: LatencyProxy | undefined;
      let databaseUrl: string;
      let gateways: GatewayProcess[] = [];
      before(async () => {
        [servers, redis] = await Promise.all([startReplicatedPostgres({ replicas: 2 }), startRedis()]);
        const database = await servers.createDatabase('coherence');
        await createCoherenceCatalog(PRODUCTS, servers.primary.urlFor(database));
        await servers.caughtUp();
        primaryAddress = await startLatencyProxy({ host: '127.0.0.1', port: servers.primary.port });
        const viaAddress = new URL(servers.primary.urlFor(database));
        viaAddress.port = String(primaryAddress.port);
        databaseUrl = viaAddress.toString();
        gateways = await startGateways({
          ...gatewayEnv(databaseUrl, { REDIS_URL: redis.url }),
          DATABASE_READ_URLS: servers.replicas.map((replica) => replica.urlFor(database)).join(','),
          DATABASE_READ_MAX_LAG_MS: String(REPLICA_MAX_LAG_MS),
        });
      });
      after(async () => {
        await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
        await Promise.allSettled([primaryAddress?.close(), redis?.stop(), servers?.destroy()]);
      });

      it('0 stale reads, reads on the second replica', async () => {
        const secondReplicaStatements = 'catalog_db_statements_total{target="replica-2"}';
        const before = await sumOver(gateways, secondReplicaStatements);
        const random = seededRandom(SEED + seedOffset);
        await attack({
          random,
          faults: ['gateway paused', failover(random), 'gateway paused'],
          gateways,
          targets: { replication: servers, primaryAddress },
          databaseUrl,
          durationMs: 40_000,
          // Through the primary's address too: their changes wait in the change log across the failover.
          sqlWriters: 1,
        });
        assert.ok((await sumOver(gateways, secondReplicaStatements)) > before, 'no read ran on the second replica');
      });
    });

  describeFailover(
    'a primary failover: one replica promoted, the other left on the old timeline ahead of it, both read by the gateways',
    14,
    // Killed (the replica left behind stops streaming), or fenced (it keeps streaming the old timeline).
    (random) => (random() < 0.5 ? 'postgres primary failed over' : 'postgres primary fenced and failed over'),
  );

  describeFailover(
    'a primary failover: the other replica, its replay behind writes acknowledged before, re-pointed to the promoted one, both read by the gateways',
    15,
    () => 'postgres primary failed over, a lagging replica following',
  );

  describe('slow statements and pauses: written products slow to compute, latency between the gateways and Postgres, one gateway hearing Redis late (and heard late by it) while its clock runs slow, gateways paused like a GC', () => {
    let redis: RedisServer;
    let latency: LatencyProxy;
    let redisLatency: LatencyProxy;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      redis = await startRedis();
      // The written products' REST answers take long to compute (a product with a long spec
      // sheet): reads of them stay in flight while writes to them are acknowledged.
      databaseUrl = await createCoherenceCatalog(PRODUCTS, undefined, { products: writtenProducts(), features: HEAVY_FEATURES });
      const direct = new URL(databaseUrl);
      latency = await startLatencyProxy({ host: direct.hostname, port: Number(direct.port) });
      const slowed = new URL(databaseUrl);
      slowed.port = String(latency.port);
      redisLatency = await startLatencyProxy({ host: '127.0.0.1', port: redis.port });
      gateways = await Promise.all([
        startGatewayProcess('gateway-a', gatewayEnv(slowed.toString(), { REDIS_URL: redis.url })),
        // Its monotonic clock runs slow too (rate within the 5% the lease margin allows): its lease,
        // and every wait it times, lasts longer in real time than the writers' clocks say.
        startGatewayProcess('gateway-b', {
          ...gatewayEnv(slowed.toString(), { REDIS_URL: `redis://127.0.0.1:${redisLatency.port}` }),
          ...(await monotonicClockRateEnv(SLOW_CLOCK_RATE)),
        }),
      ]);
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      await Promise.allSettled([latency?.close(), redisLatency?.close(), redis?.stop()]);
    });

    it('0 stale reads', async () => {
      await assertClockShimLoaded([gateways[1]!]);
      await attack({
        random: seededRandom(SEED + 11),
        faults: [
          'postgres slowed',
          'gateway paused',
          'redis slowed for one gateway',
          'postgres slowed',
          'gateway paused',
          'redis slowed for one gateway',
          'postgres slowed',
          'redis slowed both ways for one gateway',
          'gateway paused',
          'redis slowed both ways for one gateway',
          'redis messages late for one gateway',
        ],
        gateways,
        targets: { latency, redisLatency },
        databaseUrl,
        durationMs: 70_000,
        // Few enough that a read's statement leaves at once instead of queueing behind others' (loaders/shared-batchers.ts).
        readers: 4,
      });
    });
  });

  describe('a gateway whose monotonic clock runs slow (within the lease margin) hears invalidations late while Redis answers its commands at once', () => {
    let redis: RedisServer;
    let messagesLate: LatencyProxy;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      redis = await startRedis();
      const databaseUrl = await createCoherenceCatalog(PRODUCTS);
      messagesLate = await startLatencyProxy({ host: '127.0.0.1', port: redis.port });
      gateways = await Promise.all([
        startGatewayProcess('gateway-a', gatewayEnv(databaseUrl, { REDIS_URL: redis.url })),
        startGatewayProcess('gateway-b', {
          ...gatewayEnv(databaseUrl, { REDIS_URL: `redis://127.0.0.1:${messagesLate.port}` }),
          ...(await monotonicClockRateEnv(SLOW_CLOCK_RATE)),
        }),
      ]);
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      await Promise.allSettled([messagesLate?.close(), redis?.stop()]);
    });

    // Each round: gateway-b keeps a product in memory, then hears Redis's messages MESSAGES_LATE_MS
    // late (past a writer's longest wait for it) while its renewals are answered at once, so it
    // holds its lease; a write through gateway-a is acknowledged once that wait is over, and
    // gateway-b is read at once, over and over, until it has heard. Only its lease, timed by its
    // slow clock, stands between it and the product it kept: with the clock slower than the margin
    // allows, this run reads stale products (RESULTS.md).
    it('0 stale reads, gateway-b answering from memory meanwhile', { timeout: 300_000 }, async () => {
      const [writer, late] = gateways as [GatewayProcess, GatewayProcess];
      await assertClockShimLoaded([late]);
      const product = writtenProducts()[0]!;
      const slogan = () => sloganOf(late, product);
      let stale = 0;
      let readsAfterWrites = 0;
      let hitsAfterWrites = 0;
      for (let round = 0; round < LATE_ROUNDS; round += 1) {
        messagesLate.slow({ latencyMs: 0 });
        await sleep(LEASE_SETTLES_MS);
        for (let read = 0; read < 3; read += 1) await slogan();
        messagesLate.slow({ latencyMs: MESSAGES_LATE_MS, subscribersOnly: true });
        await sleep(LEASE_SETTLES_MS);
        const written = `slow clock, round ${round}`;
        const response = await fetch(`${writer.base}/products/${product}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${WRITE_TOKEN}` },
          body: JSON.stringify({ slogan: written }),
        });
        assert.equal(response.status, 200, `the write of round ${round}: ${await response.text()}`);
        const hitsBefore = await sumOver([late], MEMORY_HITS);
        const until = performance.now() + MESSAGES_LATE_MS;
        while (performance.now() < until) {
          readsAfterWrites += 1;
          if ((await slogan()) !== written) stale += 1;
        }
        hitsAfterWrites += (await sumOver([late], MEMORY_HITS)) - hitsBefore;
      }
      assert.ok(messagesLate.delayedChunks > 0, 'no message reached gateway-b late');
      assert.ok(hitsAfterWrites > 0, 'gateway-b never answered from memory after a write: its lease did not hold, nothing was tested');
      assert.equal(stale, 0, `${stale} of ${readsAfterWrites} reads of gateway-b after an acknowledged write were stale`);
    });
  });

  describe('a burst of concurrent writers and no fault: nothing resets, unwritten products stay in memory', () => {
    let redis: RedisServer;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      redis = await startRedis();
      databaseUrl = await createCoherenceCatalog(PRODUCTS);
      gateways = await startGateways({
        ...gatewayEnv(databaseUrl, { REDIS_URL: redis.url }, ROOMY_MEMORY_ENTRIES),
        CACHE_MAX_BYTES: ROOMY_MEMORY_BYTES,
      });
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      await redis?.stop();
    });

    /** Products no writer of the run touches. */
    const unwritten = () => {
      const written = new Set(writtenProducts());
      return Array.from({ length: PRODUCTS }, (_, index) => index + 1)
        .filter((id) => !written.has(id))
        .slice(0, 40);
    };
    /**
     * Reads each product once through each gateway; returns the share answered from a gateway's
     * memory. Asked while both hold their lease (a process serves its memory only then): a lease
     * lapsing under a loaded machine hides what memory holds, it does not drop it.
     */
    const memoryHitShare = async (products: readonly number[]): Promise<number> => {
      await waitFor(
        'both gateways to hold their lease',
        async () => ((await sumOver(gateways, 'catalog_coherence_lease_held')) === gateways.length ? true : undefined),
        10_000,
        50,
      );
      const before = await sumOver(gateways, MEMORY_HITS);
      for (const gateway of gateways) {
        for (const product of products) {
          const response = await fetch(`${gateway.base}/products/${product}`);
          assert.equal(response.status, 200, `${gateway.name} /products/${product}`);
          await response.arrayBuffer();
        }
      }
      return ((await sumOver(gateways, MEMORY_HITS)) - before) / (products.length * gateways.length);
    };

    it('0 stale reads, 0 resets, and every unwritten product still answered from memory', async () => {
      const probe = unwritten();
      await memoryHitShare(probe);
      const hitShareBefore = await memoryHitShare(probe);
      assert.equal(hitShareBefore, 1, 'the unwritten products were not all in memory before the burst');
      const resetsBefore = await counterTotal(gateways, 'catalog_coherence_resets_total');
      const { report } = await attack({
        random: seededRandom(SEED + 12),
        faults: [],
        gateways,
        targets: {},
        databaseUrl,
        durationMs: 60_000,
        writers: 6,
        writePauseMs: [0, 5],
      });
      const resets = (await counterTotal(gateways, 'catalog_coherence_resets_total')) - resetsBefore;
      const hitShareAfter = await memoryHitShare(probe);
      console.log(
        `burst: ${report.summary.writesAcknowledged} writes acknowledged; resets ${resets}; ` +
          `unwritten products from memory ${hitShareBefore} before, ${hitShareAfter} after`,
      );
      assert.equal(resets, 0, 'a fault-free burst of writers reset a gateway');
      assert.equal(hitShareAfter, hitShareBefore, 'the burst evicted unwritten products from memory');
    });
  });

  // A rolling update whose release changes the coherence protocol (its keys and channel: redis/keys.ts)
  // runs two protocols side by side: neither hears the other's writes. gateway-b runs this source
  // one protocol ahead; it is restarted (the next release leaving and coming back, as a rollback
  // and a retried rollout do), paused, and frozen for longer than the other counts it live while
  // both serve and write, and Redis loses everything, the record of which protocols are live included.
  // gateway-a's clock runs fast and gateway-b's slow, and gateway-b's Redis is slowed at times.
  describe('a rolling update across coherence protocols: gateway-b one protocol ahead of gateway-a, both serving and writing, their clocks at different rates', () => {
    let redis: RedisServer;
    let redisLatency: LatencyProxy;
    let databaseUrl: string;
    let next: NextProtocolSource;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      [redis, next] = await Promise.all([startRedis(), nextProtocolSource()]);
      databaseUrl = await createCoherenceCatalog(PRODUCTS);
      // gateway-b reaches Redis through a proxy: its beats answered late while its commits go on.
      redisLatency = await startLatencyProxy({ host: '127.0.0.1', port: redis.port });
      gateways = await Promise.all([
        startGatewayProcess('gateway-a', {
          ...gatewayEnv(databaseUrl, { REDIS_URL: redis.url }),
          ...(await monotonicClockRateEnv(PROTOCOLS_CLOCK_RATES.fast)),
        }),
        startGatewayProcess(
          'gateway-b',
          {
            ...gatewayEnv(databaseUrl, { REDIS_URL: `redis://127.0.0.1:${redisLatency.port}` }),
            ...(await monotonicClockRateEnv(PROTOCOLS_CLOCK_RATES.slow)),
          },
          next.entry,
        ),
      ]);
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      await Promise.allSettled([redisLatency?.close(), redis?.stop(), next?.remove()]);
    });

    it('0 stale reads while both protocols serve', async () => {
      const [current, ahead] = next.protocols;
      console.log(`protocols side by side: ${current} (gateway-a), ${ahead} (gateway-b)`);
      await assertClockShimLoaded(gateways);
      await attack({
        random: seededRandom(SEED + 16),
        // Redis restarted empty and flushed: the presence hash is lost with everything else.
        // gateway-b's Redis slowed: its beats answered late (its run broken) while it commits.
        faults: [
          'gateway paused',
          'gateway restarted',
          'redis slowed for one gateway',
          'redis restarted empty',
          'gateway frozen past its presence',
          'redis slowed both ways for one gateway',
          'gateway restarted',
          'redis flushed',
          'gateway frozen past its presence',
        ],
        gateways,
        targets: { redis, redisLatency },
        databaseUrl,
        durationMs: 75_000,
      });
    });

    it('once the other protocol is gone, the one left answers from memory again', async () => {
      const [left, gone] = gateways as [GatewayProcess, GatewayProcess];
      const ended = 'catalog_coherence_resets_total{reason="protocols"}';
      const endedBefore = await sumOver([left], ended);
      await gone.stop();
      const product = writtenProducts()[0]!;
      await waitFor(
        'gateway-a to answer from memory',
        async () => {
          const before = await sumOver([left], MEMORY_HITS);
          for (let read = 0; read < 2; read += 1) await (await fetch(`${left.base}/products/${product}`)).arrayBuffer();
          return (await sumOver([left], MEMORY_HITS)) > before ? true : undefined;
        },
        20_000,
        250,
      );
      assert.equal(await sumOver([left], 'catalog_coherence_other_protocols'), 0, 'gateway-a still counts another protocol beside it');
      assert.ok((await sumOver([left], ended)) > endedBefore, 'gateway-a answers from memory without a new epoch ending its time beside');
    });
  });

  // Rule 12's margin, attacked where it is the only defence: gateway-b (its clock slow) is frozen
  // right after a beat reached Redis while its UPDATE waits on a row lock; the lock is let go just
  // before it thaws, so the commit lands late in the freeze and is acknowledged at once if its own
  // clock says the beat was recent enough. Meanwhile gateway-a (its clock fast) counts gateway-b's
  // protocol gone, ends its time beside it and answers from memory again. With the clocks inside
  // the assumption gateway-a cannot count gateway-b gone before gateway-b acknowledges; with them
  // far apart it does, and keeps the row the write replaced (RESULTS.md).
  describe('a release frozen at the edge of its presence while its write commits: gateway-b, its clock slow, frozen right after a beat, its UPDATE let through just before it thaws', () => {
    let redis: RedisServer;
    let next: NextProtocolSource;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    let watcher: Redis;
    let locker: pg.Client;
    let observer: pg.Client;
    before(async () => {
      [redis, next] = await Promise.all([startRedis(), nextProtocolSource()]);
      databaseUrl = await createCoherenceCatalog(PRODUCTS);
      const env = { ...gatewayEnv(databaseUrl, { REDIS_URL: redis.url }), DB_STATEMENT_TIMEOUT_MS: String(EDGE_STATEMENT_TIMEOUT_MS) };
      gateways = await Promise.all([
        startGatewayProcess('gateway-a', { ...env, ...(await monotonicClockRateEnv(PROTOCOLS_CLOCK_RATES.fast)) }),
        startGatewayProcess('gateway-b', { ...env, ...(await monotonicClockRateEnv(PROTOCOLS_CLOCK_RATES.slow)) }, next.entry),
      ]);
      watcher = new Redis(redis.url, { maxRetriesPerRequest: 1 });
      locker = new pg.Client({ connectionString: databaseUrl, application_name: 'presence-edge-lock' });
      observer = new pg.Client({ connectionString: databaseUrl, application_name: 'presence-edge-observer' });
      await Promise.all([locker.connect(), observer.connect()]);
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      watcher?.disconnect();
      await Promise.allSettled([locker?.end(), observer?.end(), redis?.stop(), next?.remove()]);
    });

    it(
      '0 stale reads of gateway-a after gateway-b acknowledges, gateway-a answering from memory while gateway-b is frozen past its count',
      { timeout: 300_000 },
      async () => {
        const [reader, frozen] = gateways as [GatewayProcess, GatewayProcess];
        await assertClockShimLoaded(gateways);
        const ahead = next.protocols[1];
        const product = writtenProducts()[0]!;
        const slogan = () => sloganOf(reader, product);
        // Real time after its last beat within which gateway-b acknowledges a commit, by its clock;
        // and the soonest gateway-a counts it gone after seeing that beat, by its own.
        const marginMs = (PRESENCE_MS - PRESENCE_MARGIN_MS) / PROTOCOLS_CLOCK_RATES.slow;
        const countMs = PRESENCE_MS / PROTOCOLS_CLOCK_RATES.fast;
        let stale = 0;
        let readsAfterAcks = 0;
        let hitsWhileFrozenPast = 0;
        let acknowledgedAtTheEdge = 0;
        const rounds: string[] = [];
        for (let round = 0; round < EDGE_ROUNDS; round += 1) {
          const inside = round % 2 === 0;
          const thawAfterMs = inside
            ? marginMs - INSIDE_MARGIN_BY_MS / PROTOCOLS_CLOCK_RATES.slow
            : countMs + 2 * RENEWAL_MS + PAST_COUNT_BY_MS;
          await sleep(LEASE_SETTLES_MS);
          const written = `presence edge, round ${round}`;
          await locker.query('BEGIN');
          await locker.query(`SELECT 1 FROM ${SERVING_SCHEMA}.products WHERE id = $1 FOR UPDATE`, [product]);
          const write = fetch(`${frozen.base}/products/${product}`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${WRITE_TOKEN}` },
            body: JSON.stringify({ slogan: written }),
          });
          await waitFor(
            "gateway-b's UPDATE to wait on the row lock",
            async () => {
              const { rows } = await observer.query<{ waiting: number }>(
                `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE%'`,
              );
              return rows[0]!.waiting > 0 ? true : undefined;
            },
            10_000,
            5,
          );
          // Frozen right after a beat of gateway-b's reached Redis: the beat gateway-a last sees.
          const beat = await watcher.hget(REDIS_PROTOCOLS_KEY, ahead);
          while ((await watcher.hget(REDIS_PROTOCOLS_KEY, ahead)) === beat);
          const beatAt = performance.now();
          await sleep(BEAT_ANSWERED_MS);
          frozen.freeze();
          const hitsBefore = await sumOver([reader], MEMORY_HITS);
          while (performance.now() < beatAt + thawAfterMs - COMMIT_BEFORE_THAW_MS) await slogan();
          await locker.query('COMMIT');
          await sleep(Math.max(0, beatAt + thawAfterMs - performance.now()));
          frozen.thaw();
          const thawedAt = performance.now();
          const hitsWhileFrozen = (await sumOver([reader], MEMORY_HITS)) - hitsBefore;
          if (!inside) hitsWhileFrozenPast += hitsWhileFrozen;
          const response = await write;
          assert.equal(response.status, 200, `the write of round ${round}: ${await response.text()}`);
          const ackedAt = performance.now();
          if (inside && ackedAt - thawedAt < LEASE_MS / 2) acknowledgedAtTheEdge += 1;
          let staleThisRound = 0;
          while (performance.now() < ackedAt + READ_AFTER_ACK_MS) {
            readsAfterAcks += 1;
            if ((await slogan()) !== written) staleThisRound += 1;
          }
          stale += staleThisRound;
          rounds.push(
            `${inside ? 'inside' : 'past'}: thawed ${Math.round(thawedAt - beatAt)} ms after its beat, acknowledged ${Math.round(ackedAt - thawedAt)} ms later, ` +
              `gateway-a's memory hits while frozen ${hitsWhileFrozen}, stale ${staleThisRound}`,
          );
        }
        console.log(`presence edge (margin ${Math.round(marginMs)} ms, count ${Math.round(countMs)} ms):\n  ${rounds.join('\n  ')}`);
        assert.ok(
          hitsWhileFrozenPast > 0,
          'gateway-a never answered from memory while gateway-b was frozen past its count: its time beside never ended, nothing was tested',
        );
        assert.ok(
          acknowledgedAtTheEdge > 0,
          "gateway-b never acknowledged a write at once at its margin's edge: the inside rounds tested nothing",
        );
        assert.equal(stale, 0, `${stale} of ${readsAfterAcks} reads of gateway-a after gateway-b's acknowledged writes were stale`);
      },
    );
  });

  describe("Redis's wall clock stepped forward and back while gateways serve and write", () => {
    let redis: RedisServer;
    let databaseUrl: string;
    let gateways: GatewayProcess[] = [];
    before(async () => {
      redis = await startRedis({ steppableClock: true });
      databaseUrl = await createCoherenceCatalog(PRODUCTS);
      gateways = await startGateways(gatewayEnv(databaseUrl, { REDIS_URL: redis.url }));
    });
    after(async () => {
      await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
      await redis?.stop();
    });

    it('0 stale reads', async () => {
      await attack({
        random: seededRandom(SEED + 13),
        faults: ['redis clock stepped', 'gateway paused', 'redis clock stepped', 'gateway paused', 'redis clock stepped'],
        gateways,
        targets: { redis },
        databaseUrl,
        durationMs: 40_000,
      });
    });
  });
});

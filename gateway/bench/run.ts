/**
 * `npm run bench -- gateway`: the gateway against a bare node:http ceiling and PostGraphile v5,
 * over the same ≥1M-product catalog, driven by wrk on loopback. One target is under load at a
 * time (2 cores: wrk and that server share them; Postgres and Redis serve whichever it is),
 * alternating between a workload's targets in rounds; idle targets stay up without traffic.
 * Prints a table and the target ratios and writes results/latest.{json,md}. Fails (exit 1)
 * when a target errors or dies, never on speed.
 */
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from '../../scripts/test/redis.js';
import { loadConfig } from '../src/config.js';
import { waitForIdleDatabase, type BenchPostgres } from './bench-postgres.js';
import { forEachConcurrently } from './concurrently.js';
import { findPid } from './cpu-usage.js';
import { openBenchDataset, openBenchReplica } from './dataset.js';
import { cacheShare, readCacheLookups, type CacheShare } from './gateway-cache-stats.js';
import { parseBenchOptions } from './options.js';
import { postgresCeiling } from './postgres-ceiling.js';
import { catalogSize, coldGraphqlPlan, coldRestPlan, hotRestPlan, longTailRestPlan, writePlan, type PlannedRequest } from './plans.js';
import { nodeMemory, residentMemory, type NodeMemory, type ResidentMemory } from './process-memory.js';
import { productPageBody, productPageShape, type GraphqlDialect } from './queries.js';
import { compareTargets, type Contender, type PlanFile } from './compare.js';
import { printReport, runFailures, writeReport, type Cell, type Workload } from './report.js';
import { STOREFRONT_PAGE_SIZE, compareStorefront } from './storefront.js';
import { startBareServer } from './targets/bare.js';
import { startGateway, type GatewayProcess } from './targets/gateway.js';
import { startPostgraphile } from './targets/postgraphile.js';
import { ensureImageNode, IMAGE_NODE } from '../../scripts/test/image-node.js';
import type { ServerProcess } from './targets/server-process.js';
import { startJaeger, type TestJaeger } from '../../scripts/test/jaeger.js';
import {
  readReplicaReadCounts,
  sampleLease,
  tracedShare,
  waitForReplicaInRotation,
  type LeaseRecord,
  type ReplicaReadCounts,
} from './variant-evidence.js';
import {
  neededBackends,
  processTarget,
  variantJoins,
  VARIANTS,
  type VariantBackends,
  type VariantName,
  type VariantTarget,
} from './variants.js';

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const LOG_DIR = join(RESULTS_DIR, 'logs');
const PLAN_DIR = join(RESULTS_DIR, 'plans');
/**
 * Requests in a target's cold plan, its warm-up's first: more than a target serves in one cell,
 * so no id repeats where the catalog has that many products (a smaller one gets a plan of its
 * size, and a round that serves past its slice is reported as wrapped).
 */
const COLD_PLAN_SIZE = 400_000;
const COLD_WARMUP_SHARE = 0.25;
const HOT_PLAN_SIZE = 100_000;
/** The baseline gateway's Redis database; the variants' processes take 1, 2 … (the first gateway 0). */
const BASELINE_REDIS_DATABASE = 1;
const HOT_SPOT = { population: 10_000, exponent: 1 };
const LONG_TAIL_EXPONENT = 1.1;
/**
 * The long-tail mix is one Zipf stream cut into a warm-up slice and one slice per round, so no
 * round replays what an earlier one asked for: 2 requests per rank (400,000 at 200,000 ranks).
 * A target that serves more in a round wraps around its slice, and the report says so.
 */
const LONG_TAIL_SLICE_PER_RANK = 2;
/** The bare server replays this many recorded cold-mix responses (same route mix and sizes). */
const BARE_COLD_RESPONSES = 20_000;

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

const options = parseBenchOptions(process.argv.slice(2));
/**
 * What warming and recording ask the gateways for: what wrk's replay asks (no header: identity).
 * A compressed copy made while warming would count against a gateway's in-process byte budget
 * and crowd out responses the replay needs.
 */
const replayEncoding = options.load.acceptEncoding ?? 'identity';
await mkdir(LOG_DIR, { recursive: true });
await mkdir(PLAN_DIR, { recursive: true });

const cleanups: Array<() => Promise<void>> = [];
const cells: Cell[] = [];
let hotCache: CacheShare | undefined;
let longTailCache: CacheShare | undefined;
let longTailMemory: (ResidentMemory & NodeMemory) | undefined;
let storefrontDeepPage: number | undefined;
let replicaReads: ReplicaReadCounts | undefined;
let replicaLease: { stop(): Promise<LeaseRecord> } | undefined;
let replicaLeaseRecord: LeaseRecord | undefined;
const evidenceFailures: string[] = [];
let traced: { requests: number; traces: number } | undefined;
const runStartedMs = Date.now();
try {
  await ensureImageNode(log);
  const needed = neededBackends(options.variants);
  const dataset = await openBenchDataset({
    products: options.products,
    seed: options.seed,
    replication: needed.has('readReplicaUrl'),
    log,
  });
  cleanups.push(() => dataset.stop());
  const { productIds } = dataset;
  log(`catalog ready: product ids ${productIds.min}..${productIds.max}`);
  let replica: BenchPostgres | undefined;
  if (needed.has('readReplicaUrl')) {
    replica = await openBenchReplica(dataset, log);
    cleanups.push(() => replica!.stop());
  }
  let jaeger: TestJaeger | undefined;
  if (needed.has('otlpEndpoint')) {
    jaeger = await startJaeger();
    cleanups.push(() => jaeger!.stop());
    log(`Jaeger ready: OTLP at ${jaeger.otlpEndpoint}, query API at ${jaeger.queryUrl}`);
  }
  // Read only by the variants that need them, which the run started above.
  const backends: VariantBackends = {
    get otlpEndpoint() {
      return jaeger!.otlpEndpoint;
    },
    get readReplicaUrl() {
      return replica!.databaseUrl;
    },
  };

  // Interleaved, one process of each side at a time, the sides' order rotating from one to the
  // next (control, limits, tracing; limits, tracing, control; …): their rounds follow this order,
  // so a slow spell of the machine, or a place in the order, falls on every side alike.
  const sides = options.variants.length > 0 ? (['control', ...options.variants] as const) : [];
  const variantProcesses = Array.from({ length: options.processes }, (_, copy) =>
    sides
      .map((_, index) => sides[(index + copy) % sides.length]!)
      .map((name) => ({ name, target: processTarget(name, copy), processName: `${name}-${copy + 1}` })),
  ).flat();
  // A Redis database for each gateway: the first's, the baseline's, then the variants' processes'.
  const firstVariantDatabase = BASELINE_REDIS_DATABASE + 1;
  const redis = await startRedis({ databases: firstVariantDatabase + variantProcesses.length });
  cleanups.push(() => redis.stop());
  const gateway = await startGateway({
    databaseUrl: dataset.databaseUrl,
    redisUrl: redis.url,
    logLevel: options.gatewayLogLevel,
    logDir: LOG_DIR,
    cpuProfileDir: options.profileGateway ? join(RESULTS_DIR, 'profiles') : undefined,
  });
  cleanups.push(() => gateway.stop());
  log(`gateway ready at ${gateway.baseUrl}`);
  // --variants: --processes gateways per feature switched on and as many for the control, each on a Redis database of its own.
  const variants: Array<{ name: VariantName | 'control'; target: VariantTarget; server: GatewayProcess }> = [];
  for (const [index, { name, target, processName }] of variantProcesses.entries()) {
    const server = await startGateway({
      databaseUrl: dataset.databaseUrl,
      redisUrl: `${redis.url}/${firstVariantDatabase + index}`,
      logLevel: options.gatewayLogLevel,
      logDir: LOG_DIR,
      name: `gateway-${processName}`,
      env: VARIANTS[name].env(backends),
      cpuProfileDir: options.profileGateway ? join(RESULTS_DIR, 'profiles', processName) : undefined,
      ...('fromBaselineCheckout' in VARIANTS[name] ? { repoRoot: options.baselineCheckout } : {}),
    });
    cleanups.push(() => server.stop());
    if (name === 'replica') {
      await waitForReplicaInRotation(server);
      replicaLease ??= sampleLease(server);
    }
    variants.push({ name, target, server });
    log(`${target} ready at ${server.baseUrl}`);
  }
  const variantsIn = (workload: Workload) => variants.filter(({ name }) => variantJoins(name, workload, options.variants));
  const seed = options.seed;
  const redisPid = findPid('redis-server', `127.0.0.1:${redis.port}`);
  if (redisPid === undefined) throw new Error(`cannot find the benchmark's redis-server (port ${redis.port}) in /proc`);
  const backendPids = { postgres: [dataset.pid, ...(replica ? [replica.pid] : [])], redis: redisPid };
  const plan = async (name: string, requests: PlannedRequest[]): Promise<PlanFile & { requests: PlannedRequest[] }> => {
    const file = join(PLAN_DIR, `${name}.txt`);
    await writePlan(file, requests);
    return { file, size: requests.length, requests };
  };
  /** Disjoint slices of a cold plan, one per round, so no round repeats another's ids. */
  const roundsOf = async (name: string, requests: PlannedRequest[]) => {
    const size = Math.ceil(requests.length / options.rounds);
    return Promise.all(
      Array.from({ length: options.rounds }, (_, round) =>
        plan(`${name}-round-${round + 1}`, requests.slice(round * size, (round + 1) * size)),
      ),
    );
  };
  const coldPlanSize = Math.min(COLD_PLAN_SIZE, catalogSize(productIds));
  // A variant's process measures its share of its side's time (--duration over --processes), and
  // its cold plan is as much shorter.
  const variantSeconds = options.load.durationSeconds / options.processes;
  const variantColdPlanSize = Math.ceil(coldPlanSize / options.processes);
  /** A cold plan's warm-up and rounds, cut from one plan: no round repeats an id the warm-up asked for. */
  const coldPlans = async (name: string, requests: PlannedRequest[]) => {
    const warmupSize = Math.round(requests.length * COLD_WARMUP_SHARE);
    return {
      warmup: await plan(`${name}-warmup`, requests.slice(0, warmupSize)),
      rounds: await roundsOf(name, requests.slice(warmupSize)),
    };
  };
  const compare = async (workload: Workload, contenders: Contender[]) => {
    cells.push(
      ...(await compareTargets(workload, contenders, {
        load: options.load,
        warmupSeconds: options.warmupSeconds,
        backendPids,
        databaseIdle: async () =>
          (await waitForIdleDatabase(dataset.databaseUrl)) + (replica ? await waitForIdleDatabase(replica.databaseUrl) : 0),
        log,
      })),
    );
  };

  /**
   * The gateway of another checkout (--baseline-checkout), started like this one once a workload
   * needs it, on a Redis database of its own: another revision may spell its keys, or read its
   * clock, differently, and neither gateway may take the other's entries or resets for its own.
   */
  let baselineGateway: ServerProcess | undefined;
  const startBaselineGateway = async (repoRoot: string): Promise<ServerProcess> => {
    if (baselineGateway) return baselineGateway;
    const baseline = await startGateway({
      databaseUrl: dataset.databaseUrl,
      redisUrl: `${redis.url}/${BASELINE_REDIS_DATABASE}`,
      logLevel: options.gatewayLogLevel,
      logDir: LOG_DIR,
      name: 'gateway-baseline',
      repoRoot,
    });
    cleanups.push(() => baseline.stop());
    const revision = execFileSync('git', ['-C', repoRoot, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    log(`baseline gateway (commit ${revision} in ${repoRoot}) ready at ${baseline.baseUrl}`);
    baselineGateway = baseline;
    return baseline;
  };

  // GraphQL product page, cold: each target gets its own uniform ids, so neither finds rows the
  // other just asked for (in Postgres, or in the gateway's cache).
  if (options.workloads.has('page')) {
    const postgraphile = await startPostgraphile({ databaseUrl: dataset.databaseUrl, logDir: LOG_DIR, log });
    cleanups.push(() => postgraphile.stop());
    log(`postgraphile ready at ${postgraphile.baseUrl}`);
    await assertSameProductPage(gateway, postgraphile, productIds.min);
    const graphqlContender = async (
      target: Contender['target'],
      dialect: GraphqlDialect,
      server: ServerProcess,
      planSeed: number,
      variant = false,
    ): Promise<Contender> => {
      const file = target.replaceAll(/\W+/g, '-');
      const planSize = variant ? variantColdPlanSize : coldPlanSize;
      return {
        target,
        server,
        ...(await coldPlans(`graphql-cold-${file}`, coldGraphqlPlan(dialect, productIds, planSize, planSeed))),
        cold: true,
        ...(variant ? { durationSeconds: variantSeconds } : {}),
      };
    };
    const baseline = options.baselineCheckout ? await startBaselineGateway(options.baselineCheckout) : undefined;
    await compare('GraphQL product page, cold', [
      await graphqlContender('gateway', 'gateway', gateway, seed + 1),
      await graphqlContender('postgraphile', 'postgraphile', postgraphile, seed + 2),
      ...(baseline ? [await graphqlContender('gateway (baseline)', 'gateway', baseline, seed + 7)] : []),
      ...(await Promise.all(
        variantsIn('GraphQL product page, cold').map(({ target, server }, index) =>
          graphqlContender(target, 'gateway', server, seed + 10 + index, true),
        ),
      )),
    ]);
    await postgraphile.stop();
  }
  if (options.workloads.has('storefront')) {
    const { databaseUrl } = dataset;
    const { rounds, gatewayLogLevel: logLevel } = options;
    storefrontDeepPage = await compareStorefront({
      databaseUrl,
      cachedGateway: gateway,
      redisUrl: redis.url,
      logLevel,
      logDir: LOG_DIR,
      cpuProfileDir: options.profileGateway ? join(RESULTS_DIR, 'profiles') : undefined,
      baselineCheckout: options.baselineCheckout,
      rounds,
      plan,
      compare,
      log,
    });
  }
  if (options.workloads.has('cold') || options.workloads.has('hot') || options.workloads.has('longtail')) {
    // A bare server records the gateway's answers for the hot plan and for a cold sample of its
    // own (uniform ids, like the gateway's cold plan but other ids, so the gateway's cold rounds
    // stay cold); another records the long-tail plan right before its rounds, which also leaves
    // every one of its responses in the gateway's Redis, as a fleet's shared cache would hold them
    // (recorded earlier, the cache TTL would expire them during the other mixes).
    const restHot = await plan('rest-hot', hotRestPlan(productIds, HOT_PLAN_SIZE, seed + 4, HOT_SPOT));
    const bareCold = await plan('rest-cold-bare', coldRestPlan(productIds, BARE_COLD_RESPONSES, seed + 5));
    const longTailSlice = Math.round(LONG_TAIL_SLICE_PER_RANK * Math.min(options.longTailRanks, productIds.max - productIds.min + 1));
    const longTail = longTailRestPlan(productIds, longTailSlice * (options.rounds + 1), seed + 6, {
      ranks: options.longTailRanks,
      exponent: LONG_TAIL_EXPONENT,
    });
    const startBare = async (name: string, requests: readonly PlannedRequest[]) => {
      log(`${name}: recording the gateway responses it will replay`);
      const server = await startBareServer({
        upstreamUrl: gateway.baseUrl,
        paths: [...new Set(requests.map(({ path }) => path))],
        acceptEncoding: replayEncoding,
        logDir: LOG_DIR,
        name,
      });
      cleanups.push(() => server.stop());
      return server;
    };
    const replayed = [
      ...(options.workloads.has('cold') ? bareCold.requests : []),
      ...(options.workloads.has('hot') ? restHot.requests : []),
    ];
    const bare = replayed.length > 0 ? await startBare('bare', replayed) : undefined;

    // REST mix, cold: uniform ids over the whole catalog, every gateway response a cache miss;
    // beside it the same statements straight to Postgres (the ceiling a miss can reach).
    if (options.workloads.has('cold')) {
      const ceiling = await postgresCeiling(dataset.databaseUrl, productIds, join(PLAN_DIR, 'postgres-ceiling'));
      const baseline = options.baselineCheckout ? await startBaselineGateway(options.baselineCheckout) : undefined;
      await compare('REST mix, cold', [
        {
          target: 'gateway',
          server: gateway,
          ...(await coldPlans('rest-cold', coldRestPlan(productIds, coldPlanSize, seed + 3))),
          cold: true,
        },
        { target: 'postgres ceiling (pgbench)', drive: (seconds) => ceiling.run(seconds) },
        { target: 'bare node:http', server: bare!, warmup: bareCold, rounds: Array(options.rounds).fill(bareCold), cold: false },
        ...(baseline
          ? [
              {
                target: 'gateway (baseline)' as const,
                server: baseline,
                ...(await coldPlans('rest-cold-baseline', coldRestPlan(productIds, coldPlanSize, seed + 8))),
                cold: true,
              },
            ]
          : []),
        ...(await Promise.all(
          variantsIn('REST mix, cold').map(async ({ target, server }, index) => ({
            target,
            server,
            ...(await coldPlans(`rest-cold-${index}`, coldRestPlan(productIds, variantColdPlanSize, seed + 20 + index))),
            cold: true,
            durationSeconds: variantSeconds,
          })),
        )),
      ]);
    }

    // REST mix, hot: Zipf-popular ids, the gateway's cache warmed first with every hot path.
    if (options.workloads.has('hot')) {
      const hotPaths = new Set(restHot.requests.map(({ path }) => path));
      log(`warming the gateway's cache with the ${hotPaths.size} distinct hot paths`);
      await warmCache(gateway, hotPaths);
      const hotRounds = Array<PlanFile>(options.rounds).fill(restHot);
      const baseline = options.baselineCheckout ? await startBaselineGateway(options.baselineCheckout) : undefined;
      if (baseline) await warmCache(baseline, hotPaths);
      const hotVariants = variantsIn('REST mix, hot');
      for (const { server } of hotVariants) await warmCache(server, hotPaths);
      const lookupsBeforeHot = await readCacheLookups(gateway);
      await compare('REST mix, hot', [
        { target: 'gateway', server: gateway, warmup: restHot, rounds: hotRounds, cold: false },
        { target: 'bare node:http', server: bare!, warmup: restHot, rounds: hotRounds, cold: false },
        ...(baseline ? [{ target: 'gateway (baseline)' as const, server: baseline, warmup: restHot, rounds: hotRounds, cold: false }] : []),
        ...hotVariants.map(({ target, server }) => ({
          target,
          server,
          warmup: restHot,
          rounds: hotRounds,
          cold: false,
          durationSeconds: variantSeconds,
        })),
      ]);
      hotCache = cacheShare(lookupsBeforeHot, await readCacheLookups(gateway));
    }

    // REST mix, long tail: Zipf over many more responses than the in-process cache holds; the
    // gateway's cache starts as the recording left it and the warm-up slice settles it.
    if (options.workloads.has('longtail')) {
      const [warmup, ...rounds] = await Promise.all(
        Array.from({ length: options.rounds + 1 }, (_, slice) =>
          plan(`rest-long-tail-${slice}`, longTail.slice(slice * longTailSlice, (slice + 1) * longTailSlice)),
        ),
      );
      // The baseline's cache gets what the recording gives the gateway's (every response in its
      // Redis, through its memory in the same order) at the same time, so neither's entries are
      // older than the other's when the rounds begin (the cache TTL counts from then).
      // The variants' processes are filled the same way, each in its own Redis database.
      const baseline = options.baselineCheckout ? await startBaselineGateway(options.baselineCheckout) : undefined;
      const longTailVariants = variantsIn('REST mix, long tail');
      const longTailPaths = new Set(longTail.map(({ path }) => path));
      const [bareLongTail] = await Promise.all([
        startBare('bare-long-tail', longTail),
        baseline && warmCache(baseline, longTailPaths),
        ...longTailVariants.map(({ server }) => warmCache(server, longTailPaths)),
      ]);
      const lookupsBefore = await readCacheLookups(gateway);
      await compare('REST mix, long tail', [
        { target: 'gateway', server: gateway, warmup: warmup!, rounds, cold: true },
        { target: 'bare node:http', server: bareLongTail, warmup: warmup!, rounds, cold: true },
        ...(baseline ? [{ target: 'gateway (baseline)' as const, server: baseline, warmup: warmup!, rounds, cold: true }] : []),
        ...longTailVariants.map(({ target, server }) => ({
          target,
          server,
          warmup: warmup!,
          rounds,
          cold: true,
          durationSeconds: variantSeconds,
        })),
      ]);
      longTailCache = cacheShare(lookupsBefore, await readCacheLookups(gateway));
      longTailMemory = { ...residentMemory(gateway.pid), ...(await nodeMemory(gateway)) };
    }
  }
  // The measurements stand without this evidence: its failure is reported with them, and fails the run after.
  const evidence = async (name: VariantName, gather: (servers: GatewayProcess[]) => Promise<void>) => {
    const servers = variants.filter((variant) => variant.name === name).map(({ server }) => server);
    if (servers.length === 0) return;
    try {
      await gather(servers);
    } catch (error) {
      evidenceFailures.push(`${name}: ${(error as Error).message}`);
    }
  };
  await evidence('replica', async ([first]) => {
    replicaReads = await readReplicaReadCounts(first!);
    replicaLeaseRecord = await replicaLease!.stop();
  });
  await evidence('tracing', async (servers) => {
    traced = await tracedShare(servers, jaeger!.queryUrl, runStartedMs);
  });
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(error));
}

// The settings the gateway ran with: its own defaults unless this environment overrides them.
const gatewayConfig = loadConfig(process.env);
const IMAGE_NODE_VERSION = execFileSync(IMAGE_NODE, ['--version'], { encoding: 'utf8' }).trim();
const setup =
  `Load: wrk, ${options.load.threads} thread(s), ${options.load.connections} connections, ` +
  `${options.warmupSeconds} s warm-up, then ${options.load.durationSeconds} s per target measured in ${options.rounds} rounds ` +
  `alternating between the targets of a workload (one target under load at a time); ` +
  `wrk, the target, Postgres and Redis share the machine's ${(await import('node:os')).availableParallelism()} cores. ` +
  `Gateway at ${gatewayRevision()}: pool ${gatewayConfig.DB_POOL_MAX}, cache TTL ${gatewayConfig.CACHE_TTL_SECONDS} s, ` +
  `in-process LRU ${gatewayConfig.CACHE_MAX_ENTRIES} entries / ${gatewayConfig.CACHE_MAX_BYTES / 1024 ** 2} MiB, Redis, LOG_LEVEL=${options.gatewayLogLevel}. ` +
  `Every target on the image's Node (${IMAGE_NODE_VERSION}). PostGraphile 5 (amber preset, pool 20). Hot mix: Zipf(s=${HOT_SPOT.exponent}) over ${HOT_SPOT.population} products. ` +
  `Long-tail mix: Zipf(s=${LONG_TAIL_EXPONENT}) over ${Math.min(options.longTailRanks, options.products)} products spread across the catalog, list pages Zipf too.` +
  (options.variants.length > 0
    ? ` Variants (${options.variants.join(', ')}) and the control: ${options.processes} gateway processes each, ` +
      `each measured for ${options.load.durationSeconds} / ${options.processes} s of its side's ${options.load.durationSeconds} s (rounds of whole seconds).`
    : '');
const describeCache = (workload: string, share: CacheShare | undefined) =>
  share
    ? `Gateway cache during the ${workload} (its metrics): in-process cache hits ${(100 * share.memoryHitRatio).toFixed(1)}%, ` +
      `Redis answered ${(100 * share.redisHitRatio).toFixed(1)}% of its misses.`
    : '';
const memoryNote = longTailMemory
  ? `Gateway RSS after the long-tail rounds: ${longTailMemory.rssMiB.toFixed(0)} MiB (peak over the run ${longTailMemory.peakRssMiB.toFixed(0)} MiB); ` +
    `V8 heap (the cached bodies among it) ${longTailMemory.heapUsedMiB.toFixed(0)} MiB used of ${longTailMemory.heapTotalMiB.toFixed(0)} MiB, ` +
    `external (Buffers: compressed copies, sockets) ${longTailMemory.externalMiB.toFixed(0)} MiB.`
  : '';
const storefrontNote = storefrontDeepPage
  ? `Storefront: ${STOREFRONT_PAGE_SIZE} products of one category by price, page 1 and page ${storefrontDeepPage} (the deep page), ` +
    `each side reaching the deep page by its own after-cursor; "gateway" runs with its response cache off (a second process), "gateway, cache on" is the deployed default, for information.`
  : '';
const replicaNote = replicaReads
  ? `Reads on a replica (its first gateway's metrics over the run): statements by target ${JSON.stringify(replicaReads.statements)}, ` +
    `reads sent to the primary instead, by reason ${JSON.stringify(replicaReads.fallbacks)}.` +
    (replicaLeaseRecord
      ? ` Its coherence lease (without it reads go to the primary, uncounted) was found lapsed in ${replicaLeaseRecord.lapsed} ` +
        `of ${replicaLeaseRecord.samples} samples (one a second); resets ${JSON.stringify(replicaLeaseRecord.resets)}, ` +
        `cache errors ${JSON.stringify(replicaLeaseRecord.cacheErrors)}.`
      : '')
  : '';
const tracingNote = traced
  ? `Tracing at 1 %: Jaeger holds ${traced.traces} traces of the ${traced.requests} requests its ${options.processes} gateways answered ` +
    `(${((100 * traced.traces) / Math.max(1, traced.requests)).toFixed(2)} %).`
  : '';
const cacheNote = [
  describeCache('hot mix', hotCache),
  describeCache('long-tail mix', longTailCache),
  memoryNote,
  storefrontNote,
  replicaNote,
  tracingNote,
]
  .filter(Boolean)
  .join('\n');
printReport(cells);
console.log(cacheNote);
await writeReport(RESULTS_DIR, cells, options, `${setup}\n\n${cacheNote}`);
log(`results written to ${join(RESULTS_DIR, 'latest.json')}`);

const failures = [...runFailures(cells), ...evidenceFailures.map((failure) => `cannot show what a variant did: ${failure}`)];
if (failures.length > 0) {
  console.error(`FAILED: ${failures.join('; ')}`);
  process.exit(1);
}

/** Asks `server` for every path once, so its in-process cache holds them all. */
async function warmCache(server: ServerProcess, paths: Iterable<string>): Promise<void> {
  await forEachConcurrently(paths, 32, async (path) => {
    const response = await fetch(server.baseUrl + path, { headers: { 'accept-encoding': replayEncoding } });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${server.name} answered ${response.status} to ${path} while warming its cache`);
  });
}

/** The commit the gateway ran from, and whether its sources had uncommitted changes. */
function gatewayRevision(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: RESULTS_DIR, encoding: 'utf8' }).trim();
  const dirty = git('status', '--porcelain', '--', '../../src') !== '';
  return `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in gateway/src' : ''}`;
}

/** Both GraphQL targets must return the same product page, or the comparison means nothing. */
async function assertSameProductPage(gateway: ServerProcess, postgraphile: ServerProcess, productId: number) {
  const ask = async (dialect: GraphqlDialect, server: ServerProcess) => {
    const response = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: productPageBody(dialect, productId),
    });
    const payload = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown };
    if (!response.ok || !payload.data || payload.errors) {
      throw new Error(`${server.name} failed the product page for ${productId}: ${response.status} ${JSON.stringify(payload)}`);
    }
    return productPageShape(dialect, payload.data);
  };
  const [fromGateway, fromPostgraphile] = [await ask('gateway', gateway), await ask('postgraphile', postgraphile)];
  if (JSON.stringify(fromGateway) !== JSON.stringify(fromPostgraphile)) {
    throw new Error(
      `gateway and PostGraphile disagree on product ${productId}: ${JSON.stringify(fromGateway)} vs ${JSON.stringify(fromPostgraphile)}`,
    );
  }
  log(`product page ${productId} agrees on both GraphQL targets: ${JSON.stringify(fromGateway)}`);
}

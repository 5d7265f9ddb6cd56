/**
 * `npm run bench -- gateway`: the gateway against a bare node:http ceiling and PostGraphile v5,
 * over the same ≥1M-product catalog, driven by wrk on loopback. Targets are measured one at a
 * time (2 cores: wrk and one server share them; Postgres and Redis serve whichever is under
 * load); idle targets stay up but get no traffic. Prints a table and the target ratios and
 * writes results/latest.{json,md}. Fails (exit 1) when a target errors, never on speed.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from '../../scripts/test/redis.js';
import { openBenchDataset } from './dataset.js';
import { parseBenchOptions } from './options.js';
import { coldGraphqlPlan, coldRestPlan, hotRestPlan, writePlan, type PlannedRequest } from './plans.js';
import { productPageBody, productPageShape, type GraphqlDialect } from './queries.js';
import { printReport, writeReport, type Cell, type TargetName, type Workload } from './report.js';
import { startBareServer } from './targets/bare.js';
import { startGateway } from './targets/gateway.js';
import { startPostgraphile } from './targets/postgraphile.js';
import type { ServerProcess } from './targets/server-process.js';
import { runWrk } from './wrk.js';

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const LOG_DIR = join(RESULTS_DIR, 'logs');
const PLAN_DIR = join(RESULTS_DIR, 'plans');
/** Distinct requests in a cold plan: more than a target serves in one cell, so ids never repeat. */
const COLD_PLAN_SIZE = 200_000;
const HOT_PLAN_SIZE = 100_000;
const HOT_SPOT = { population: 10_000, exponent: 1 };
/** The bare server replays this many recorded cold-mix responses (same route mix and sizes). */
const BARE_COLD_RESPONSES = 50_000;

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

const options = parseBenchOptions(process.argv.slice(2));
await mkdir(LOG_DIR, { recursive: true });
await mkdir(PLAN_DIR, { recursive: true });

const cleanups: Array<() => Promise<void>> = [];
const cells: Cell[] = [];
try {
  const dataset = await openBenchDataset({ products: options.products, seed: options.seed, log });
  cleanups.push(() => dataset.stop());
  const { productIds } = dataset;
  log(`catalog ready: product ids ${productIds.min}..${productIds.max}`);

  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const gateway = await startGateway({
    databaseUrl: dataset.databaseUrl,
    redisUrl: redis.url,
    logLevel: options.gatewayLogLevel,
    logDir: LOG_DIR,
  });
  cleanups.push(() => gateway.stop());
  log(`gateway ready at ${gateway.baseUrl}`);
  const postgraphile = await startPostgraphile({ databaseUrl: dataset.databaseUrl, logDir: LOG_DIR, log });
  cleanups.push(() => postgraphile.stop());
  log(`postgraphile ready at ${postgraphile.baseUrl}`);
  await assertSameProductPage(gateway, postgraphile, productIds.min);

  const seed = options.seed;
  const plan = async (name: string, requests: PlannedRequest[]) => {
    const file = join(PLAN_DIR, `${name}.txt`);
    await writePlan(file, requests);
    return { file, size: requests.length, requests };
  };
  const measure = async (
    workload: Workload,
    target: TargetName,
    server: ServerProcess,
    warmup: { file: string },
    measured: { file: string; size: number },
    cold: boolean,
  ) => {
    log(`${workload} × ${target}: warm-up ${options.warmupSeconds} s, then ${options.load.durationSeconds} s`);
    server.assertAlive();
    await runWrk(server.baseUrl, warmup.file, { ...options.load, durationSeconds: options.warmupSeconds });
    const result = await runWrk(server.baseUrl, measured.file, options.load);
    server.assertAlive();
    const cell = { workload, target, planSize: measured.size, planWrapped: cold && result.requests > measured.size, ...result };
    cells.push(cell);
    log(`  ${Math.round(cell.rps)} RPS, p95 ${cell.p95Ms.toFixed(2)} ms, ${cell.errors} errors`);
  };

  // GraphQL product page, cold: each target gets its own uniform ids (no shared warm rows).
  const graphqlPlan = (dialect: GraphqlDialect, planSeed: number) =>
    plan(`graphql-cold-${dialect}-${planSeed}`, coldGraphqlPlan(dialect, productIds, COLD_PLAN_SIZE, planSeed));
  await measure('GraphQL product page, cold', 'gateway', gateway, await graphqlPlan('gateway', seed + 101), await graphqlPlan('gateway', seed + 1), true);
  await measure('GraphQL product page, cold', 'postgraphile', postgraphile, await graphqlPlan('postgraphile', seed + 102), await graphqlPlan('postgraphile', seed + 2), true);
  await postgraphile.stop();

  // REST mix, cold: uniform ids over the whole catalog, every response a cache miss.
  const restCold = await plan('rest-cold', coldRestPlan(productIds, COLD_PLAN_SIZE, seed + 3));
  await measure('REST mix, cold', 'gateway', gateway, await plan('rest-cold-warmup', coldRestPlan(productIds, COLD_PLAN_SIZE, seed + 103)), restCold, true);

  // The bare server records the gateway's answers for the hot plan and part of the cold one;
  // recording every hot path is also what warms the gateway's cache for the hot mix.
  const restHot = await plan('rest-hot', hotRestPlan(productIds, HOT_PLAN_SIZE, seed + 4, HOT_SPOT));
  const bareCold = await plan('rest-cold-bare', restCold.requests.slice(0, BARE_COLD_RESPONSES));
  log('bare node:http: recording the gateway responses it will replay');
  const bare = await startBareServer({
    upstreamUrl: gateway.baseUrl,
    paths: [...new Set([...restHot.requests, ...bareCold.requests].map(({ path }) => path))],
    logDir: LOG_DIR,
  });
  cleanups.push(() => bare.stop());

  await measure('REST mix, hot', 'gateway', gateway, restHot, restHot, false);
  await measure('REST mix, hot', 'bare node:http', bare, restHot, restHot, false);
  await measure('REST mix, cold', 'bare node:http', bare, bareCold, bareCold, false);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(error));
}

const setup =
  `Load: wrk, ${options.load.threads} thread(s), ${options.load.connections} connections, ` +
  `${options.warmupSeconds} s warm-up + ${options.load.durationSeconds} s measured per cell, one target at a time; ` +
  `wrk, the target, Postgres and Redis share the machine's ${(await import('node:os')).availableParallelism()} cores. ` +
  `Gateway: defaults (pool ${process.env.DB_POOL_MAX ?? 20}, cache TTL 60 s) with Redis, LOG_LEVEL=${options.gatewayLogLevel}. ` +
  `PostGraphile 5 (amber preset, pool 20) on Node 22. Hot mix: Zipf(s=${HOT_SPOT.exponent}) over ${HOT_SPOT.population} products.`;
printReport(cells);
await writeReport(RESULTS_DIR, cells, options, setup);
log(`results written to ${join(RESULTS_DIR, 'latest.json')}`);

const failed = cells.filter((cell) => cell.errors > 0);
if (failed.length > 0) {
  console.error(`FAILED: ${failed.map((cell) => `${cell.target} (${cell.workload}): ${cell.errors} errors ${JSON.stringify(cell.errorDetail)}`).join('; ')}`);
  process.exit(1);
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

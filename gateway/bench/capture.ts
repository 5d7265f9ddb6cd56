/**
 * `npm run bench -- capture`: what change capture (gateway/README.md, "Consistency", rule 11;
 * contract/sql/capture.sql) costs per change, and how long a change takes to leave every tier.
 * One short run on a small catalog: the capture triggers' cost (the same UPDATEs with the
 * triggers off and on, in alternating rounds), then SQL writes and gateway writes at a steady
 * rate through two gateways and a real Varnish, each followed until every tier answers it.
 * Prints the tables and ratios and writes results/capture-latest.{json,md}. Fails (exit 1) on
 * errors, never on speed.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { CHANGE_LOG_TABLE, installChangeCapture, SERVING_SCHEMA } from '@catalog/contract';
import {
  bucketsSince,
  histogramBuckets,
  histogramCount,
  histogramQuantile,
  scrapeMetrics,
  type HistogramBuckets,
} from '../../scripts/test/metrics.js';
import { freePort } from '../../scripts/test/ports.js';
import { startRedis } from '../../scripts/test/redis.js';
import { startVarnish, type VarnishServer } from '../../scripts/test/varnish.js';
import { ensureImageNode } from '../../scripts/test/image-node.js';
import { BENCH_DATABASE } from './bench-postgres.js';
import { CAPTURE_MODES, measureCaptureCost, pooledCost, type CostCell } from './capture-cost.js';
import { cacheEverywhere, measureVisibility, POLL_MS, type Tier, type Visibility } from './capture-visibility.js';
import { findPid } from './cpu-usage.js';
import { openBenchDataset, prewarm } from './dataset.js';
import { positiveInteger as positiveIntegerOption } from './options.js';
import { percentile } from './percentile.js';
import { startGateway, type GatewayProcess } from './targets/gateway.js';

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
const LOG_DIR = join(RESULTS_DIR, 'logs');
/** The run's own copy of the cached catalog, dropped when it ends: the cached cluster stays as loaded. */
const CAPTURE_DATABASE = 'catalog_capture_bench';
const WRITE_TOKEN = 'capture-bench-write-token';
const CAPTURE_DELAY = 'catalog_capture_delay_seconds';
const PURGE_LATENCY = 'catalog_edge_purge_latency_seconds';

const USAGE = `usage: npm run bench -- capture [--products N] [--seed S] [--clients N] [--rounds N] [--round-seconds S]
                                [--batch-rows N] [--rate N] [--write-seconds S] [--gateway-log-level LEVEL]`;

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

const positiveInteger = (name: string, value: string) => positiveIntegerOption(name, value, USAGE);

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    products: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '42' },
    clients: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    'round-seconds': { type: 'string', default: '4' },
    'batch-rows': { type: 'string', default: '100' },
    rate: { type: 'string', default: '20' },
    'write-seconds': { type: 'string', default: '15' },
    'gateway-log-level': { type: 'string', default: 'warn' },
  },
  strict: true,
});
const options = {
  products: positiveInteger('products', values.products),
  seed: positiveInteger('seed', values.seed),
  clients: positiveInteger('clients', values.clients),
  rounds: positiveInteger('rounds', values.rounds),
  roundSeconds: positiveInteger('round-seconds', values['round-seconds']),
  batchRows: positiveInteger('batch-rows', values['batch-rows']),
  rate: positiveInteger('rate', values.rate),
  writeSeconds: positiveInteger('write-seconds', values['write-seconds']),
  gatewayLogLevel: values['gateway-log-level'],
};
await mkdir(LOG_DIR, { recursive: true });

/** A latency row: one way of writing, followed on every tier, with the gateways' histograms over the same time. */
interface LatencyRow {
  writes: string;
  visibility: Visibility;
  /** Gateways' catalog_capture_delay_seconds over the writes (SQL writes only). */
  captureDelay: HistogramBuckets | undefined;
  /** Gateways' catalog_edge_purge_latency_seconds for Varnish over the writes. */
  purgeLatency: HistogramBuckets | undefined;
}

const cleanups: Array<() => Promise<void>> = [];
let costCells: CostCell[] = [];
let purgesUnderLoad: HistogramBuckets | undefined;
const latencyRows: LatencyRow[] = [];
const varnishBin = process.env.VARNISHD_BIN ?? 'varnishd';
/** Debian puts varnishd in /usr/sbin, which a user's PATH may lack (scripts/test/varnish.ts runs it by name). */
const varnishInstalled = varnishBin.includes('/')
  ? existsSync(varnishBin)
  : [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin'].some((dir) => existsSync(join(dir, varnishBin)));
let failure: unknown;
try {
  await ensureImageNode(log);
  const dataset = await openBenchDataset({ products: options.products, seed: options.seed, log });
  cleanups.push(() => dataset.stop());
  const { productIds } = dataset;
  const databaseUrl = await copyCatalog(dataset.urlFor('postgres'));
  cleanups.push(() => dropCatalogCopy(dataset.urlFor('postgres')));
  await prewarm(databaseUrl, log);

  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const varnishPort = varnishInstalled ? await freePort() : undefined;
  const purgeTarget = varnishPort === undefined ? undefined : `varnish:127.0.0.1:${varnishPort}`;
  const gateways: GatewayProcess[] = [];
  for (const name of ['gateway-a', 'gateway-b']) {
    const gateway = await startGateway({
      databaseUrl,
      redisUrl: redis.url,
      logLevel: options.gatewayLogLevel,
      logDir: LOG_DIR,
      name: `capture-${name}`,
      env: {
        WRITE_TOKEN,
        // Longer than the run: only an invalidation or a purge lets go of a cached product.
        CACHE_TTL_SECONDS: '3600',
        HTTP_CACHE_SHARED_MAX_AGE_SECONDS: '3600',
        ...(varnishPort === undefined ? {} : { EDGE_PURGE_VARNISH_URLS: `http://127.0.0.1:${varnishPort}/` }),
      },
    });
    cleanups.push(() => gateway.stop());
    gateways.push(gateway);
  }
  log(`gateways ready at ${gateways.map((gateway) => gateway.baseUrl).join(', ')}`);
  let varnish: VarnishServer | undefined;
  if (varnishPort !== undefined) {
    varnish = await startVarnish(
      gateways.map((gateway) => ({ host: '127.0.0.1', port: Number(new URL(gateway.baseUrl).port) })),
      varnishPort,
    );
    cleanups.push(() => varnish!.stop());
    log(`Varnish (xkey) ready at ${varnish.url}, in front of both gateways`);
  } else {
    log(`Varnish is not installed (no ${varnishBin}): the gateways alone, no purges measured`);
  }
  const metricsOf = async () => Promise.all(gateways.map((gateway) => scrapeMetrics(gateway)));
  const histogram = async (name: string, labels = '') => histogramBuckets(await metricsOf(), name, labels);
  const purgeLabels = purgeTarget === undefined ? undefined : `target="${purgeTarget}"`;

  // 1. The triggers' cost per change.
  const purgesBefore = purgeLabels === undefined ? undefined : await histogram(PURGE_LATENCY, purgeLabels);
  const varnishPid = varnishPort === undefined ? undefined : findPid('varnishd', `127.0.0.1:${varnishPort}`);
  costCells = await measureCaptureCost({
    databaseUrl,
    productIds,
    clients: options.clients,
    rounds: options.rounds,
    roundSeconds: options.roundSeconds,
    batchRows: options.batchRows,
    pids: { postgres: dataset.pid, gateways: gateways.map((gateway) => gateway.pid), redis: redis.pid!, varnish: varnishPid },
    gateways,
    workDir: join(RESULTS_DIR, 'plans', 'capture'),
    log,
  });
  if (purgeLabels) purgesUnderLoad = bucketsSince(purgesBefore!, await histogram(PURGE_LATENCY, purgeLabels));

  // 2. and 3. Writes at a steady rate, each followed on every tier: by SQL (captured), then
  // through the gateways' API (announced by the gateway that wrote). Each product written once,
  // the two sets disjoint.
  const tiers: Tier[] = [
    ...gateways.map((gateway) => ({ name: gateway.name, baseUrl: gateway.baseUrl })),
    ...(varnish ? [{ name: 'varnish', baseUrl: varnish.url }] : []),
  ];
  const perRun = options.rate * options.writeSeconds;
  const step = Math.floor((productIds.max - productIds.min + 1) / (2 * perRun));
  if (step < 1) throw new Error(`--rate × --write-seconds × 2 (${2 * perRun}) must not exceed --products`);
  const written = (offset: number) => Array.from({ length: perRun }, (_, index) => productIds.min + (2 * index + offset) * step);
  const follow = async (writes: string, ids: number[], write: (id: number, slogan: string, index: number) => Promise<void>) => {
    log(`${writes}: caching ${ids.length} products on every tier, then ${options.rate} writes/s for ${options.writeSeconds} s`);
    await cacheEverywhere(tiers, ids);
    const [delayBefore, purgeBefore] = [
      await histogram(CAPTURE_DELAY),
      purgeLabels === undefined ? undefined : await histogram(PURGE_LATENCY, purgeLabels),
    ];
    const visibility = await measureVisibility(tiers, ids, options.rate, write, `capture bench ${writes}`);
    const delay = bucketsSince(delayBefore, await histogram(CAPTURE_DELAY));
    latencyRows.push({
      writes,
      visibility,
      captureDelay: histogramCount(delay) > 0 ? delay : undefined,
      purgeLatency: purgeLabels ? bucketsSince(purgeBefore!, await histogram(PURGE_LATENCY, purgeLabels)) : undefined,
    });
  };
  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  cleanups.push(() => sql.end());
  await follow('SQL UPDATE (captured)', written(0), async (id, slogan) => {
    await sql.query({
      name: 'capture-bench-update',
      text: `UPDATE ${SERVING_SCHEMA}.products SET slogan = $1 WHERE id = $2`,
      values: [slogan, id],
    });
  });
  await follow('REST PUT (gateway write)', written(1), async (id, slogan, index) => {
    const response = await fetch(`${gateways[index % gateways.length]!.baseUrl}/products/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${WRITE_TOKEN}` },
      body: JSON.stringify({ slogan }),
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`PUT /products/${id} answered ${response.status}`);
  });
  for (const gateway of gateways) gateway.assertAlive();
} catch (error) {
  failure = error;
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(error));
}
if (failure) {
  console.error(failure);
  process.exit(1);
}

const round1 = (value: number) => Number(value.toFixed(1));
const ms = (seconds: number | undefined) => (seconds === undefined ? 'n/a' : round1(seconds * 1_000));
const statementShapes = [...new Set(costCells.map((cell) => cell.statement))];
const costRows = statementShapes.flatMap((statement) =>
  CAPTURE_MODES.map((mode) => {
    const pooled = pooledCost(costCells, statement, mode);
    const rows = costCells.find((cell) => cell.statement === statement)!.rowsPerStatement;
    return {
      statement,
      mode,
      'statements/s': Math.round(pooled.statementsPerSecond),
      'PG µs/stmt': Math.round(pooled.cpuMicrosPerStatement.postgres),
      'PG µs/row': round1(pooled.cpuMicrosPerStatement.postgres / rows),
      'of which claims µs/stmt': Math.round(pooled.cpuMicrosPerStatement.claims),
      'gateways µs/stmt': Math.round(pooled.cpuMicrosPerStatement.gateways),
      'Redis µs/stmt': Math.round(pooled.cpuMicrosPerStatement.redis),
      'Varnish µs/stmt': Math.round(pooled.cpuMicrosPerStatement.varnish),
      'drain ms': Math.round(pooled.drainMs),
      statements: pooled.statements,
      'load avg': round1(pooled.machineLoad),
    };
  }),
);
const costRatios = statementShapes.flatMap((statement) => {
  const off = pooledCost(costCells, statement, 'capture off');
  return (['capture on', 'capture on, gateway origin'] as const).map((mode) => {
    const on = pooledCost(costCells, statement, mode);
    return (
      `${statement}: ${mode} / capture off: statements/s ${(on.statementsPerSecond / off.statementsPerSecond).toFixed(2)}, ` +
      `Postgres CPU per statement ${(on.cpuMicrosPerStatement.postgres / off.cpuMicrosPerStatement.postgres).toFixed(2)} ` +
      `(+${Math.round(on.cpuMicrosPerStatement.postgres - off.cpuMicrosPerStatement.postgres)} µs)`
    );
  });
});
const latencyTable = latencyRows.map(({ writes, visibility, captureDelay, purgeLatency }) => ({
  writes: `${writes}, ${visibility.writes} at ${options.rate}/s`,
  ...Object.fromEntries(
    [...visibility.tierMs].flatMap(([tier, delays]) => [
      [`${tier} p50 ms`, round1(percentile(delays, 0.5))],
      [`${tier} p99 ms`, round1(percentile(delays, 0.99))],
    ]),
  ),
  'every tier p50 ms': round1(percentile(visibility.everyTierMs, 0.5)),
  'every tier p99 ms': round1(percentile(visibility.everyTierMs, 0.99)),
  'capture delay p50 ms': ms(captureDelay && histogramQuantile(captureDelay, 0.5)),
  'capture delay p99 ms': ms(captureDelay && histogramQuantile(captureDelay, 0.99)),
  'purge p50 ms': ms(purgeLatency && histogramQuantile(purgeLatency, 0.5)),
  'purge p99 ms': ms(purgeLatency && histogramQuantile(purgeLatency, 0.99)),
  purges: purgeLatency ? histogramCount(purgeLatency) : 'n/a',
  'served old first': [...visibility.servedOld].map(([tier, count]) => `${tier} ${count}`).join(', '),
  unseen: visibility.unseen,
}));
const notes = [
  `Catalog: ${options.products.toLocaleString('en')} products (seed ${options.seed}), a copy of the cached benchmark cluster's; ` +
    `Postgres, two gateways (built, the image's Node, one Redis), ${varnishInstalled ? 'Varnish (xkey, the chart sample VCL) in front' : 'NO Varnish (not installed: no purges measured)'}; ` +
    `${availableParallelism()} cores shared by all of them and pgbench; load average at the end ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}.`,
  `Cost: pgbench, prepared, ${options.clients} clients each on ids of its own, ${options.rounds} rounds of ${options.roundSeconds} s per mode ` +
    `in turn (off, on, origin; on, origin, off; …). "capture on, gateway origin": sessions set catalog_capture.origin = gateway, ` +
    `as the gateway's own writes do (the triggers fire and return). CPU per statement from /proc over each round and its drain ` +
    `(until the gateways had claimed, announced and purged every entry); Postgres counts every backend (the statements, the triggers, the gateways' claims); "of which claims": the gateways' change-log connections (woken by a NOTIFY or a poll, claiming and deleting entries).`,
  `Latency: each product written once, after every tier cached it; each tier read every ${POLL_MS} ms from the commit (SQL) or the ` +
    `PUT's answer until it showed the new slogan ("served old first": writes a tier answered with the old value after the commit, ` +
    `proof it held it; one that let go before its first read was answered counts as not). ` +
    `Capture delay: the gateways' ${CAPTURE_DELAY} (statement end to every gateway let go); purge: ${PURGE_LATENCY} (first purge request to Varnish taking it).`,
  ...(purgesUnderLoad
    ? [
        `Purges during the cost rounds (full speed): ${histogramCount(purgesUnderLoad)}, p50 ${ms(histogramQuantile(purgesUnderLoad, 0.5))} ms, ` +
          `p99 ${ms(histogramQuantile(purgesUnderLoad, 0.99))} ms.`,
      ]
    : []),
];
console.table(costRows);
for (const line of costRatios) console.log(line);
console.table(latencyTable);
for (const line of notes) console.log(line);
const markdownTable = (rows: readonly Record<string, unknown>[]) => {
  const header = Object.keys(rows[0] ?? {});
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${Object.values(row).join(' | ')} |`),
  ];
};
const date = new Date().toISOString();
await writeFile(
  join(RESULTS_DIR, 'capture-latest.json'),
  JSON.stringify({ date, options, costCells, costRows, costRatios, latencyTable, notes }, null, 2),
);
await writeFile(
  join(RESULTS_DIR, 'capture-latest.md'),
  [
    `# Capture benchmark — ${date}`,
    '',
    ...markdownTable(costRows),
    '',
    ...costRatios.map((line) => `- ${line}`),
    '',
    ...markdownTable(latencyTable),
    '',
    ...notes,
    '',
  ].join('\n'),
);
log(`results written to ${join(RESULTS_DIR, 'capture-latest.md')}`);
const unseen = latencyRows.reduce((sum, row) => sum + row.visibility.unseen, 0);
if (unseen > 0) {
  console.error(`FAILED: ${unseen} writes not shown by every tier within 30 s`);
  process.exit(1);
}

/** The run's own copy of the benchmark catalog, with change capture installed (as a loader's swap leaves it) and an empty change log. */
async function copyCatalog(adminUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${CAPTURE_DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${CAPTURE_DATABASE} TEMPLATE ${BENCH_DATABASE}`);
  } finally {
    await admin.end();
  }
  const url = Object.assign(new URL(adminUrl), { pathname: `/${CAPTURE_DATABASE}` }).toString();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await installChangeCapture(client, SERVING_SCHEMA);
    await client.query('COMMIT');
    await client.query(`TRUNCATE ${CHANGE_LOG_TABLE}`);
  } finally {
    await client.end();
  }
  log(`copied the catalog into ${CAPTURE_DATABASE}, change capture installed`);
  return url;
}

async function dropCatalogCopy(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${CAPTURE_DATABASE} WITH (FORCE)`).finally(() => admin.end());
}

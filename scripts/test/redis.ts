import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clockShim } from './clock-shims.js';
import { freePort } from './ports.js';
import { GroupProcess, runOk } from './process.js';

/** How a test's private Redis is configured (none of it survives `kill()` but what start-up sets). */
export interface RedisOptions {
  /** `maxmemory` (`16mb`, bytes…); unset, Redis grows without bound. */
  maxmemory?: string;
  /** `maxmemory-policy` (`allkeys-lru`, `volatile-lru`, `noeviction`…); Redis's own default when unset. */
  maxmemoryPolicy?: string;
  /** `notify-keyspace-events` flags: `Ee` publishes every evicted key on `__keyevent@<db>__:evicted`. */
  notifyKeyspaceEvents?: string;
  /** Starts it as a replica of the Redis on this loopback port. */
  replicaOf?: number;
  /** How many numbered databases it has (Redis's default: 16). */
  databases?: number;
  /**
   * Runs the server with its wall clock (`TIME`, key expiry) offset by a preloaded shim
   * (wall-clock-offset/), so that it can be stepped while it runs (`stepClock`); its monotonic
   * clock stays the machine's.
   */
  steppableClock?: boolean;
}

/** What `INFO` says about a running server. */
export interface RedisStats {
  /** Changes on every start: tells a restarted server from the one before. */
  runId: string;
  /** Keys evicted under `maxmemory` since this server started. */
  evictedKeys: number;
  usedMemoryBytes: number;
  /** Keys in all databases. */
  keys: number;
}

/** A real redis-server (from the system) on a private loopback port, without persistence. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** The server process's id, while it runs. */
  readonly pid: number | undefined;
  /** Shuts the server down (SIGTERM; SIGKILL if it has not exited after 5 s) and removes its directory. */
  stop(): Promise<void>;
  /** kill -9: gone at once, mid-command, with everything it held. */
  kill(): Promise<void>;
  /** Starts the server (again) on the same port with the same options and no data. */
  start(): Promise<void>;
  /** Stalls the server with SIGSTOP: connections stay open, nothing answers. */
  freeze(): void;
  /** Resumes a frozen server (SIGCONT). */
  thaw(): void;
  /** Runs one command with redis-cli and returns its reply as text (`FLUSHALL`, `DBSIZE`, …). */
  command(...args: string[]): Promise<string>;
  /**
   * Steps the server's wall clock to `offsetMs` from the machine's (0: back in step); only for a
   * server started with `steppableClock`. Resolves once `TIME` shows the new offset.
   */
  stepClock(offsetMs: number): Promise<void>;
  /** FLUSHALL: every key of every database gone, the server still running. */
  flushAll(): Promise<void>;
  stats(): Promise<RedisStats>;
}

const REDIS_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const REDIS_CLI_BIN = process.env.REDIS_CLI_BIN ?? 'redis-cli';

/** One `key:value` field of INFO's text. */
function infoField(info: string, field: string): string {
  const value = new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();
  if (value === undefined) throw new Error(`INFO has no ${field}:\n${info}`);
  return value;
}

/** The server's command-line settings for `options`. */
function settings(options: RedisOptions): string[] {
  return [
    ...(options.maxmemory ? ['--maxmemory', options.maxmemory] : []),
    ...(options.maxmemoryPolicy ? ['--maxmemory-policy', options.maxmemoryPolicy] : []),
    ...(options.notifyKeyspaceEvents ? ['--notify-keyspace-events', options.notifyKeyspaceEvents] : []),
    ...(options.replicaOf ? ['--replicaof', '127.0.0.1', String(options.replicaOf)] : []),
    ...(options.databases ? ['--databases', String(options.databases)] : []),
  ];
}

/** Writes the offset in place (never truncating: the server maps the file). */
async function writeOffset(file: string, offsetMs: number): Promise<void> {
  const bytes = Buffer.alloc(8);
  bytes.writeBigInt64LE(BigInt(Math.round(offsetMs * 1_000)));
  const handle = await open(file, existsSync(file) ? 'r+' : 'w');
  try {
    await handle.write(bytes, 0, 8, 0);
  } finally {
    await handle.close();
  }
}

export async function startRedis(options: RedisOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  // A replica keeps the snapshot its primary sends it here: never in the caller's directory, and
  // deleted before every start, so a server always starts empty.
  const dir = await mkdtemp(join(tmpdir(), 'catalog-redis-'));
  let server: GroupProcess | undefined;
  // The shim reads the offset from this file's 8 bytes on every call: a step takes at once.
  const clockFile = join(dir, 'clock-offset');
  const clockEnv = options.steppableClock
    ? { env: { ...process.env, LD_PRELOAD: await clockShim('wall-clock-offset'), WALL_CLOCK_OFFSET_FILE: clockFile } }
    : {};
  if (options.steppableClock) await writeOffset(clockFile, 0);

  const start = async () => {
    await rm(join(dir, 'dump.rdb'), { force: true });
    await mkdir(dir, { recursive: true });
    server = new GroupProcess(
      `${REDIS_BIN} (Debian's redis-server package)`,
      REDIS_BIN,
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...settings(options)],
      undefined,
      clockEnv,
    );
    await server.waitForOutput('Ready to accept connections', 30_000);
  };
  const command = async (...args: string[]) => (await runOk(REDIS_CLI_BIN, ['-h', '127.0.0.1', '-p', String(port), ...args])).trim();
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return server?.running ? server.pid : undefined;
    },
    async stop() {
      await server?.stop(5_000);
      await rm(dir, { recursive: true, force: true });
    },
    async kill() {
      await server?.stop(0);
    },
    start,
    freeze: () => server?.signal('SIGSTOP'),
    thaw: () => server?.signal('SIGCONT'),
    command,
    async stepClock(offsetMs: number) {
      if (!options.steppableClock) throw new Error('this Redis was not started with a steppable clock');
      await writeOffset(clockFile, offsetMs);
      const [seconds, micros] = (await command('TIME')).split('\n').map(Number);
      const shown = seconds! * 1_000 + micros! / 1_000 - Date.now();
      if (Math.abs(shown - offsetMs) > 1_000) throw new Error(`Redis's clock is ${Math.round(shown)} ms off, not ${offsetMs} ms`);
    },
    async flushAll() {
      const reply = await command('FLUSHALL');
      if (reply !== 'OK') throw new Error(`FLUSHALL answered ${reply}`);
    },
    async stats() {
      const info = await command('INFO', 'everything');
      const keys = [...info.matchAll(/^db\d+:keys=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
      return {
        runId: infoField(info, 'run_id'),
        evictedKeys: Number(infoField(info, 'evicted_keys')),
        usedMemoryBytes: Number(infoField(info, 'used_memory')),
        keys,
      };
    },
  };
}

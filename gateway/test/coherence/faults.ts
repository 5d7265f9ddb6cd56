// The faults of a coherence run, injected one after another on a seeded random schedule while
// the clients run. Each fault proves it happened (a new Redis run_id, a process seen stopped in
// /proc, keys seen evicted, a replica seen behind the primary…); one that cannot is recorded as
// failed, never skipped in silence.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { LatencyProxy } from '../../../scripts/test/latency-proxy.js';
import type { PostgresNode, ReplicatedPostgres } from '../../../scripts/test/postgres-replication.js';
import type { RedisServer } from '../../../scripts/test/redis.js';
import type { RedisSentinelGroup } from '../../../scripts/test/redis-sentinel.js';
import { waitFor } from '../../../scripts/test/wait.js';
import { seededRandom, uniformInt, type Random } from '../../bench/random.js';
import { parseLsn, timelineOf } from '../../src/db/lsn.js';
import type { GatewayProcess } from './gateway-process.js';
import { now } from './history.js';

export type FaultKind =
  | 'redis memory pressure'
  | 'redis restarted empty'
  | 'redis flushed'
  | 'redis frozen'
  | 'gateway frozen'
  | 'gateway frozen past its presence'
  | 'gateway restarted'
  | 'redis primary killed'
  | 'replica replay paused'
  | 'postgres slowed'
  | 'redis slowed for one gateway'
  | 'redis slowed both ways for one gateway'
  | 'redis messages late for one gateway'
  | 'gateway paused'
  | 'redis clock stepped'
  | 'postgres primary failed over'
  | 'postgres primary fenced and failed over'
  | 'postgres primary failed over, a lagging replica following';

/** What the faults act on: a standalone Redis, or a Sentinel-watched primary and replica; a Postgres primary with a streaming replica. */
export interface FaultTargets {
  redis?: RedisServer;
  sentinels?: RedisSentinelGroup;
  /** Between the gateways and Postgres: what slows every statement's answer. */
  latency?: LatencyProxy;
  /** Between one gateway and Redis: what slows its renewals' answers and the messages it hears (and, both ways, its commands). */
  redisLatency?: LatencyProxy;
  /** The gateways read its first replica (DATABASE_READ_URLS). */
  replication?: ReplicatedPostgres;
  /** The address the gateways reach the primary by (DATABASE_URL): what a failover moves. */
  primaryAddress?: LatencyProxy;
  gateways: readonly GatewayProcess[];
}

export interface PlannedFault {
  kind: FaultKind;
  /** Quiet time before it begins. */
  gapBeforeMs: number;
  /** How long it lasts (a freeze, the junk filling, Redis down between kill and start). */
  durationMs: number;
  /** Which gateway a gateway fault hits. */
  gateway: number;
  /** Seeds what the fault itself draws (how slow, how far). */
  seed: number;
}

export interface FaultRecord extends PlannedFault {
  start: number;
  end: number;
  /** What shows it happened, or why it did not. */
  evidence: string;
  happened: boolean;
}

/** How long each kind lasts, in ms: [shortest, longest]. */
const DURATIONS_MS: Record<FaultKind, readonly [number, number]> = {
  'redis memory pressure': [8_000, 12_000],
  'redis restarted empty': [200, 1_500],
  'redis flushed': [0, 0],
  'redis frozen': [1_000, 3_000],
  'gateway frozen': [1_000, 2_000],
  // Past PRESENCE_MS (coherence/protocol-presence.ts): gateways of another protocol count its own
  // gone and end their time beside it, while it holds requests and writes in flight.
  'gateway frozen past its presence': [3_500, 6_000],
  'gateway restarted': [0, 0],
  'redis primary killed': [0, 0],
  'replica replay paused': [1_000, 3_000],
  'postgres slowed': [5_000, 9_000],
  'redis slowed for one gateway': [3_000, 6_000],
  'redis slowed both ways for one gateway': [3_000, 6_000],
  'redis messages late for one gateway': [3_000, 6_000],
  // A stop-the-world pause: a major GC, a throttled container (CPU quota), a VM stolen from.
  'gateway paused': [50, 400],
  'redis clock stepped': [2_000, 5_000],
  // How long the primary's address refuses connections after the promotion, before it is moved.
  'postgres primary failed over': [0, 1_000],
  'postgres primary fenced and failed over': [0, 1_000],
  // How long the following replica's replay stays paused once it is re-pointed.
  'postgres primary failed over, a lagging replica following': [2_000, 4_000],
};
/** What the slowed Postgres adds to every answer, in ms: longer than a write's commit-to-200 path. */
const POSTGRES_LATENCY_MS: readonly [number, number] = [20, 150];
/** What one gateway's Redis answers and messages arrive late by, in ms: up to past a lease. */
const REDIS_LATENCY_MS: readonly [number, number] = [50, 1_500];
/** The slowed link's capacity, bytes a second a connection: a large product's answer takes 50–200 ms. */
const POSTGRES_BYTES_PER_SECOND: readonly [number, number] = [500_000, 2_000_000];
/** How far Redis's wall clock is stepped, in ms, forward or back (an NTP step, a VM restored). */
const CLOCK_STEP_MS: readonly [number, number] = [2_000, 120_000];
const GAP_MS: readonly [number, number] = [1_500, 4_000];

/**
 * WAL the primary writes after the replica to be promoted stopped hearing it, which the other
 * replica replays: outside the catalog, so no acknowledged write is lost by the failover, and
 * more than a run's writes add on the new timeline, so the replica left behind stays ahead of it.
 */
const DIVERGED_WAL_ROWS = 100_000;

/** Junk written under memory pressure: big values, so a few dozen a second churn a small `maxmemory`. */
const JUNK_VALUE_BYTES = 64 * 1024;
/** How often the filler tops up its junk. */
const JUNK_PACE_MS = 100;
/** Longest wait for /proc to show a signalled process stopped or running again. */
const STATE_CHANGE_TIMEOUT_MS = 5_000;

/** Every kind once, in a random order, with random gaps and durations. */
export function planFaults(random: Random, kinds: readonly FaultKind[], gateways: number): PlannedFault[] {
  const order = [...kinds];
  for (let index = order.length - 1; index > 0; index -= 1) {
    const other = uniformInt(random, 0, index);
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  return order.map((kind) => ({
    kind,
    gapBeforeMs: uniformInt(random, ...GAP_MS),
    durationMs: uniformInt(random, ...DURATIONS_MS[kind]),
    gateway: uniformInt(random, 0, gateways - 1),
    seed: uniformInt(random, 0, 2 ** 31 - 1),
  }));
}

export const formatPlan = (plan: readonly PlannedFault[]): string =>
  plan.map((fault) => `${fault.kind} (after ${fault.gapBeforeMs} ms, for ${fault.durationMs} ms, gateway ${fault.gateway})`).join(' → ');

/** The state letter of /proc/<pid>/stat: `T` while stopped by SIGSTOP. */
async function processState(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

/** Waits until /proc shows `pid` in a state `wanted` accepts (signals are delivered asynchronously). */
const reachState = (pid: number, what: string, wanted: (state: string) => boolean): Promise<string> =>
  waitFor(
    what,
    async () => {
      const state = await processState(pid);
      return wanted(state) ? state : undefined;
    },
    STATE_CHANGE_TIMEOUT_MS,
    10,
  );

/** SIGSTOPs a process for `durationMs`, proving from /proc that it really was stopped and then resumed. */
async function freezeProcess(name: string, pid: number, freeze: () => void, thaw: () => void, durationMs: number): Promise<string> {
  freeze();
  try {
    await reachState(pid, `${name} (pid ${pid}) to stop after SIGSTOP (state T)`, (state) => state === 'T');
    await sleep(durationMs);
  } finally {
    thaw();
  }
  const resumed = await reachState(pid, `${name} (pid ${pid}) to resume after SIGCONT`, (state) => state !== 'T');
  return `${name} (pid ${pid}) stopped (state T) for ${durationMs} ms, then resumed (state ${resumed})`;
}

/** Evicted key names as Redis announces them (`notify-keyspace-events Ee`). */
async function watchEvictions(url: string): Promise<{ keys: string[]; stop: () => Promise<void> }> {
  const subscriber = new Redis(url, { maxRetriesPerRequest: 1 });
  const keys: string[] = [];
  subscriber.on('pmessage', (_pattern, _channel, key: string) => keys.push(key));
  await subscriber.psubscribe('__keyevent@*__:evicted');
  return {
    keys,
    async stop() {
      // Redis answers on this connection in order: once PING is back, every earlier notification is in.
      await subscriber.ping();
      subscriber.disconnect();
    },
  };
}

/**
 * Writes junk keys of random names: at once as much as fits below `maxmemory`, then
 * `bytesPerSecond` for `durationMs`. Redis makes each value itself (SETRANGE past the end of a
 * new key), so the filler keeps its pace even when this process is slow to run.
 */
async function fillWithJunk(url: string, durationMs: number, bytesPerSecond: number): Promise<number> {
  const filler = new Redis(url, { maxRetriesPerRequest: 1 });
  const write = async (count: number) => {
    const pipeline = filler.pipeline();
    for (let index = 0; index < count; index += 1) pipeline.setrange(`junk:${randomBytes(8).toString('hex')}`, JUNK_VALUE_BYTES - 1, 'x');
    const failed = (await pipeline.exec())?.find(([error]) => error)?.[0];
    if (failed) throw failed;
  };
  try {
    const maxmemory = Number(((await filler.config('GET', 'maxmemory')) as string[])[1]);
    const used = Number(/^used_memory:(\d+)/m.exec(await filler.info('memory'))?.[1]);
    const room = Math.ceil(Math.max(0, maxmemory - used) / JUNK_VALUE_BYTES);
    await write(room);
    const started = now();
    let paced = 0;
    while (now() - started < durationMs) {
      await sleep(JUNK_PACE_MS);
      const due = Math.floor(((now() - started) * bytesPerSecond) / 1_000 / JUNK_VALUE_BYTES);
      await write(due - paced);
      paced = due;
    }
    return room + paced;
  } finally {
    filler.disconnect();
  }
}

/** How many keys of each kind (`catalog:tag`, `catalog:response`…, `junk`) a list holds, most first. */
function countByKind(keys: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const key of keys) {
    const kind = key
      .split(':')
      .slice(0, key.startsWith('catalog:') ? 2 : 1)
      .join(':');
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ');
}

const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`this run has no ${what}`);
  return value;
};

/** Redis under `allkeys-lru` at its `maxmemory`, junk pushing the catalog's own keys out. */
async function memoryPressure(redis: RedisServer, durationMs: number, bytesPerSecond: number): Promise<string> {
  const before = await redis.stats();
  const evictions = await watchEvictions(redis.url);
  let junk: number;
  try {
    junk = await fillWithJunk(redis.url, durationMs, bytesPerSecond);
  } finally {
    await evictions.stop();
  }
  const after = await redis.stats();
  if (after.runId !== before.runId) throw new Error('Redis restarted while it was filled: its eviction count started over');
  const evicted = after.evictedKeys - before.evictedKeys;
  const catalogKeys = evictions.keys.filter((key) => key.startsWith('catalog:'));
  const memory = `used_memory ${(before.usedMemoryBytes / 1024 ** 2).toFixed(1)} → ${(after.usedMemoryBytes / 1024 ** 2).toFixed(1)} MiB`;
  const summary = `${junk} junk values of ${JUNK_VALUE_BYTES / 1024} KiB, ${memory}; evicted_keys +${evicted}: ${countByKind(evictions.keys)}`;
  if (evicted <= 0) throw new Error(`no key was evicted (${summary})`);
  if (catalogKeys.length === 0) throw new Error(`no catalog: key was evicted (${summary})`);
  return summary;
}

async function restartRedisEmpty(redis: RedisServer, downMs: number): Promise<string> {
  const before = await redis.stats();
  await redis.kill();
  await sleep(downMs);
  await redis.start();
  const after = await redis.stats();
  if (after.runId === before.runId) throw new Error(`Redis kept its run_id ${before.runId}: it was not restarted`);
  return `killed with ${before.keys} keys, down ${downMs} ms, back empty with run_id ${after.runId.slice(0, 8)} (was ${before.runId.slice(0, 8)}), ${after.keys} keys on its first INFO`;
}

async function flushRedis(redis: RedisServer): Promise<string> {
  const before = await redis.stats();
  await redis.flushAll();
  return `FLUSHALL answered OK with ${before.keys} keys held`;
}

/**
 * Replay paused on the streaming replica for `durationMs` (`pg_wal_replay_pause()`): WAL keeps
 * arriving, nothing written meanwhile becomes visible there. It counts only if the replica was
 * really paused and behind the primary when it resumed: a pause that hid no write proves nothing.
 */
async function pauseReplay({ primary, replicas }: ReplicatedPostgres, durationMs: number): Promise<string> {
  const replica = need(replicas[0], 'streaming replica');
  await replica.pauseReplay();
  let replay: { replayed: string; state: string } | undefined;
  let primaryAt: { lsn: string } | undefined;
  try {
    await sleep(durationMs);
    [replay] = await replica.query<{ replayed: string; state: string }>(
      'postgres',
      'SELECT pg_last_wal_replay_lsn()::text AS replayed, pg_get_wal_replay_pause_state() AS state',
    );
    [primaryAt] = await primary.query<{ lsn: string }>('postgres', 'SELECT pg_current_wal_lsn()::text AS lsn');
  } finally {
    await replica.resumeReplay();
  }
  const { replayed, state } = need(replay, 'replay position');
  const { lsn } = need(primaryAt, 'primary position');
  const behind = parseLsn(lsn) - parseLsn(replayed);
  const summary = `replay on ${replica.name} ${state} for ${durationMs} ms: replayed ${replayed}, primary at ${lsn} (${behind} bytes behind) when it resumed`;
  if (state !== 'paused') throw new Error(`replay was not paused (${summary})`);
  if (behind <= 0n) throw new Error(`the primary wrote nothing while replay was paused (${summary})`);
  return summary;
}

/**
 * Every answer from Postgres late, and large ones later (a congested link): reads of a large
 * product still in flight while small writes to it are acknowledged.
 */
async function slowPostgres(latency: LatencyProxy, durationMs: number, random: Random): Promise<string> {
  const latencyMs = uniformInt(random, ...POSTGRES_LATENCY_MS);
  const bytesPerSecond = uniformInt(random, ...POSTGRES_BYTES_PER_SECOND);
  const before = latency.delayedChunks;
  latency.slow({ latencyMs, bytesPerSecond });
  try {
    await sleep(durationMs);
  } finally {
    latency.slow({ latencyMs: 0 });
  }
  const held = latency.delayedChunks - before;
  const link = `${latencyMs} ms late at ${(bytesPerSecond / 1e6).toFixed(2)} MB/s a connection`;
  if (held === 0) throw new Error(`nothing came from Postgres in ${durationMs} ms of answers ${link}`);
  return `every answer from Postgres ${link} for ${durationMs} ms: ${held} chunks held back`;
}

/**
 * One gateway hears Redis late (its renewals' answers and the invalidation messages alike),
 * while the other gateway and the writers do not: a congested or distant link to Redis. With
 * `requests`, Redis hears that gateway late too: its renewals, its writes' announcements and its
 * stores arrive after commands the other gateway sent later.
 */
/** What a slowed Redis link holds back: the answers and messages a gateway hears, its commands too, or its messages only. */
type RedisSlowdown = 'answers' | 'both ways' | 'messages';

async function slowRedisForOne(latency: LatencyProxy, durationMs: number, random: Random, slowdown: RedisSlowdown): Promise<string> {
  const latencyMs = uniformInt(random, ...REDIS_LATENCY_MS);
  const before = latency.delayedChunks;
  latency.slow({ latencyMs, requests: slowdown === 'both ways', subscribersOnly: slowdown === 'messages' });
  try {
    await sleep(durationMs);
  } finally {
    latency.slow({ latencyMs: 0 });
  }
  const held = latency.delayedChunks - before;
  if (held === 0) throw new Error(`nothing came from Redis in ${durationMs} ms of ${slowdown} ${latencyMs} ms late`);
  const what = {
    answers: 'answers and messages',
    'both ways': 'commands, answers and messages',
    messages: 'messages (its commands answered at once)',
  }[slowdown];
  return `one gateway's Redis ${what} ${latencyMs} ms late for ${durationMs} ms: ${held} chunks held back`;
}

/**
 * Redis's wall clock stepped by a random offset, forward or back, for `durationMs`, then back in
 * step (a second step): TIME and key expiry follow it; its monotonic clock does not.
 */
async function stepRedisClock(redis: RedisServer, durationMs: number, random: Random): Promise<string> {
  const offsetMs = uniformInt(random, ...CLOCK_STEP_MS) * (random() < 0.5 ? -1 : 1);
  await redis.stepClock(offsetMs);
  try {
    await sleep(durationMs);
  } finally {
    await redis.stepClock(0);
  }
  return `Redis's wall clock stepped ${offsetMs > 0 ? '+' : ''}${offsetMs} ms for ${durationMs} ms (TIME showed it), then back`;
}

/** `pg_current_wal_lsn()` of a primary, with its timeline (the first 8 hex digits of its WAL file's name). */
async function walPosition(server: PostgresNode): Promise<{ lsn: string; timeline: number }> {
  const [row] = await server.query<{ lsn: string; file: string }>(
    'postgres',
    'SELECT pg_current_wal_lsn()::text AS lsn, pg_walfile_name(pg_current_wal_lsn()) AS file',
  );
  const { lsn, file } = need(row, 'WAL position');
  return { lsn, timeline: timelineOf(file) };
}

/** How far a standby has replayed, or received (what has reached it, shown or not). */
type StandbyProgress = 'replay' | 'receive';

const standbyLsn = async (replica: PostgresNode, progress: StandbyProgress): Promise<string> =>
  need((await replica.query<{ lsn: string }>('postgres', `SELECT pg_last_wal_${progress}_lsn()::text AS lsn`))[0], `${progress} position`)
    .lsn;

/** Waits until `replica` has replayed (or received) up to `lsn`. */
const reached = (replica: PostgresNode, progress: StandbyProgress, lsn: string): Promise<true> =>
  waitFor(
    `${replica.name} to ${progress} up to ${lsn}`,
    async () => (parseLsn(await standbyLsn(replica, progress)) >= parseLsn(lsn) ? true : undefined),
    30_000,
    20,
  );

/**
 * The primary is lost and its first replica is promoted, as a failover manager does, while the
 * second replica, which heard the primary for longer, is left on the old timeline ahead of the
 * promotion point (an asynchronous standby more advanced than the one chosen; until a manager
 * rewinds it, it still answers reads). The primary's address is cut first and every catalog
 * write is on both replicas before the first stops hearing the primary, so nothing acknowledged
 * is lost: only WAL outside the catalog is. Then the address moves to the promoted server.
 * `crash`: the primary is killed, and the replica left behind stops streaming; else it is only
 * fenced (no client reaches it, as after a partition) and that replica keeps streaming the old
 * timeline from it.
 */
async function failOverPrimary(
  { primary, replicas }: ReplicatedPostgres,
  address: LatencyProxy,
  downMs: number,
  crash: boolean,
): Promise<string> {
  const promoted = need(replicas[0], 'replica to promote');
  const leftBehind = need(replicas[1], 'second replica');
  address.cut();
  const before = await walPosition(primary);
  await Promise.all([reached(promoted, 'replay', before.lsn), reached(leftBehind, 'replay', before.lsn)]);
  await promoted.kill();
  await primary.query('postgres', 'CREATE TABLE IF NOT EXISTS failover_filler (line text)');
  await primary.query('postgres', `INSERT INTO failover_filler SELECT repeat('x', 100) FROM generate_series(1, ${DIVERGED_WAL_ROWS})`);
  const diverged = await walPosition(primary);
  await reached(leftBehind, 'replay', diverged.lsn);
  if (crash) await primary.kill();
  // Cut off from the old primary: it would stream what it missed from one still running.
  await promoted.start({ alone: true });
  await promoted.promote();
  const after = await walPosition(promoted);
  await sleep(downMs);
  address.moveTo(promoted.port);
  const ahead = parseLsn(diverged.lsn) - parseLsn(after.lsn);
  const summary =
    `primary ${crash ? 'killed' : 'fenced, still streaming to the replica left behind,'} at ${diverged.lsn} (timeline ${diverged.timeline}); ${promoted.name}, stopped at ${before.lsn}, promoted to timeline ` +
    `${after.timeline} at ${after.lsn}; ${leftBehind.name} left on timeline ${diverged.timeline} at ${diverged.lsn}, ${ahead} bytes ahead; ` +
    `the primary's address moved after ${downMs} ms`;
  if (after.timeline <= diverged.timeline) throw new Error(`the promoted server is not on a new timeline (${summary})`);
  if (ahead <= 0n) throw new Error(`the replica left behind is not ahead of the promotion point (${summary})`);
  return summary;
}

/** How long the following replica's replay is paused before the failover: writes acknowledged meanwhile reach it unreplayed. */
const FOLLOWER_PAUSED_BEFORE_MS = 1_500;

/** What a standby's WAL receiver streams now: its timeline, or null (waiting, stopped). */
async function streamedTimeline(replica: PostgresNode): Promise<number | null> {
  const [row] = await replica.query<{ timeline: number }>(
    'postgres',
    "SELECT received_tli AS timeline FROM pg_stat_wal_receiver WHERE status = 'streaming'",
  );
  return row?.timeline ?? null;
}

/**
 * The primary is killed and its first replica promoted, while the second, its replay paused (it
 * receives WAL but shows none of it), has received all the old primary wrote; it is then pointed
 * at the promoted server, as a failover manager re-points every standby, with its replay still
 * short of writes acknowledged before the failover, for `pausedMs`, then resumed. What its WAL
 * receiver streams meanwhile is recorded: rule 8 names its replay position by that timeline.
 */
async function failOverWithLaggingFollower(
  { primary, replicas }: ReplicatedPostgres,
  address: LatencyProxy,
  pausedMs: number,
): Promise<string> {
  const promoted = need(replicas[0], 'replica to promote');
  const follower = need(replicas[1], 'second replica');
  await follower.pauseReplay();
  let paused = true;
  try {
    await sleep(FOLLOWER_PAUSED_BEFORE_MS);
    address.cut();
    const end = await walPosition(primary);
    await Promise.all([reached(promoted, 'replay', end.lsn), reached(follower, 'receive', end.lsn)]);
    await primary.kill();
    await promoted.promote();
    address.moveTo(promoted.port);
    // Re-pointed: no slot on the promoted server yet, so none is named.
    await follower.query('postgres', `ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=${promoted.port} user=postgres'`);
    await follower.query('postgres', `ALTER SYSTEM SET primary_slot_name = ''`);
    await follower.query('postgres', 'SELECT pg_reload_conf()');
    const replayed = await standbyLsn(follower, 'replay');
    const streamedWhilePaused = new Set<string>();
    const pausedUntil = now() + pausedMs;
    while (now() < pausedUntil) {
      streamedWhilePaused.add(String((await streamedTimeline(follower)) ?? 'nothing'));
      await sleep(50);
    }
    await follower.resumeReplay();
    paused = false;
    const resumedAt = now();
    const streamed = await waitFor(
      `${follower.name} to stream the promoted server's timeline once its replay resumed`,
      async () => {
        const timeline = await streamedTimeline(follower);
        return timeline !== null && timeline > end.timeline ? timeline : undefined;
      },
      30_000,
      20,
    );
    const summary =
      `primary killed at ${end.lsn} (timeline ${end.timeline}); ${promoted.name} promoted; ${follower.name} re-pointed to it with its ` +
      `replay paused at ${replayed}: its receiver streamed ${[...streamedWhilePaused].join(', ')} for ${pausedMs} ms, then timeline ` +
      `${streamed} ${Math.round(now() - resumedAt)} ms after its replay resumed`;
    if (parseLsn(replayed) >= parseLsn(end.lsn)) throw new Error(`nothing written before the failover waited in its replay (${summary})`);
    return summary;
  } finally {
    if (paused) await follower.resumeReplay();
  }
}

async function restartGateway(gateway: GatewayProcess): Promise<string> {
  const oldPid = gateway.pid;
  const signal = await gateway.kill();
  if (signal !== 'SIGKILL') throw new Error(`${gateway.name} (pid ${oldPid}) ended by ${signal}, not SIGKILL`);
  await gateway.start();
  return `${gateway.name} pid ${oldPid} ended by SIGKILL; pid ${gateway.pid} answers /readyz on the same port`;
}

/** Brings `fault` about and returns the evidence that it happened; throws when it did not. */
async function inject(fault: PlannedFault, targets: FaultTargets, junkBytesPerSecond: number): Promise<string> {
  // Each fault's own draws (a latency, a clock step) come from its plan, so a seed replays them.
  const random = seededRandom(fault.seed);
  const gateway = () => targets.gateways[fault.gateway]!;
  switch (fault.kind) {
    case 'redis memory pressure':
      return memoryPressure(need(targets.redis, 'standalone Redis'), fault.durationMs, junkBytesPerSecond);
    case 'redis restarted empty':
      return restartRedisEmpty(need(targets.redis, 'standalone Redis'), fault.durationMs);
    case 'redis flushed':
      return flushRedis(need(targets.redis, 'standalone Redis'));
    case 'redis frozen': {
      const redis = need(targets.redis, 'standalone Redis');
      return freezeProcess('redis', need(redis.pid, 'running Redis'), redis.freeze, redis.thaw, fault.durationMs);
    }
    case 'gateway frozen':
    case 'gateway frozen past its presence':
      return freezeProcess(gateway().name, gateway().pid, gateway().freeze, gateway().thaw, fault.durationMs);
    case 'gateway restarted':
      return restartGateway(gateway());
    case 'redis primary killed': {
      const { from, to } = await need(targets.sentinels, 'Redis Sentinel group').killPrimary();
      return `primary on port ${from} killed (SIGKILL); the Sentinels promoted the replica on port ${to}`;
    }
    case 'replica replay paused':
      return pauseReplay(need(targets.replication, 'Postgres streaming replica'), fault.durationMs);
    case 'postgres slowed':
      return slowPostgres(need(targets.latency, 'latency proxy before Postgres'), fault.durationMs, random);
    case 'redis slowed for one gateway':
      return slowRedisForOne(need(targets.redisLatency, 'latency proxy before Redis'), fault.durationMs, random, 'answers');
    case 'redis slowed both ways for one gateway':
      // Its renewals, write announcements and stores reach Redis late too, not only what it hears.
      return slowRedisForOne(need(targets.redisLatency, 'latency proxy before Redis'), fault.durationMs, random, 'both ways');
    case 'redis messages late for one gateway':
      // Its renewals answered at once (within REDIS_COMMAND_TIMEOUT_MS) while invalidations reach it late: its lease is what stands between.
      return slowRedisForOne(need(targets.redisLatency, 'latency proxy before Redis'), fault.durationMs, random, 'messages');
    case 'gateway paused':
      return freezeProcess(gateway().name, gateway().pid, gateway().freeze, gateway().thaw, fault.durationMs);
    case 'redis clock stepped':
      return stepRedisClock(need(targets.redis, 'standalone Redis'), fault.durationMs, random);
    case 'postgres primary failed over':
    case 'postgres primary fenced and failed over':
      return failOverPrimary(
        need(targets.replication, 'Postgres primary with two replicas'),
        need(targets.primaryAddress, "address of the primary's"),
        fault.durationMs,
        fault.kind === 'postgres primary failed over',
      );
    case 'postgres primary failed over, a lagging replica following':
      return failOverWithLaggingFollower(
        need(targets.replication, 'Postgres primary with two replicas'),
        need(targets.primaryAddress, "address of the primary's"),
        fault.durationMs,
      );
  }
}

/** Injects one fault now and records when it ran and what shows it happened (or why it did not). */
export async function injectFault(fault: PlannedFault, targets: FaultTargets, junkBytesPerSecond: number): Promise<FaultRecord> {
  const start = now();
  try {
    const evidence = await inject(fault, targets, junkBytesPerSecond);
    return { ...fault, start, end: now(), evidence, happened: true };
  } catch (error) {
    return { ...fault, start, end: now(), evidence: (error as Error).message, happened: false };
  }
}

/** Injects the planned faults one after another, each after its gap. `junkBytesPerSecond` paces the memory-pressure filler. */
export async function injectFaults(
  plan: readonly PlannedFault[],
  targets: FaultTargets,
  junkBytesPerSecond: number,
): Promise<FaultRecord[]> {
  const records: FaultRecord[] = [];
  for (const fault of plan) {
    await sleep(fault.gapBeforeMs);
    records.push(await injectFault(fault, targets, junkBytesPerSecond));
  }
  return records;
}

/** The timeline of the faults, times relative to `origin`. */
export const formatFaults = (records: readonly FaultRecord[], origin: number): string =>
  records
    .map(
      (record) =>
        `  ${((record.start - origin) / 1000).toFixed(1)}–${((record.end - origin) / 1000).toFixed(1)} s ${record.kind}: ` +
        `${record.happened ? '' : 'DID NOT HAPPEN: '}${record.evidence}`,
    )
    .join('\n');

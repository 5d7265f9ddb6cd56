import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { SharedBatchers } from '../loaders/shared-batchers.js';
import type { Repositories } from '../repository/index.js';
import { Database, type DatabaseOptions } from './database.js';
import { LSN_MAX, onTimeline, type Lsn } from './lsn.js';
import { MonitorConnection, repeatEvery } from './monitor-connection.js';
import { PrimaryPosition } from './primary-position.js';
import { ReplicaDatabase, type StatementFallback } from './replica-database.js';
import { ReplicaHealth, type ReplicaSample } from './replica-health.js';
import { SERVER_IDENTITY_SQL } from './server-identity.js';

/** How often every target's WAL position is read. */
export const POLL_INTERVAL_MS = 100;
/** Longest answer to a position read (a frozen server fails fast, not after the statement timeout). */
const POLL_TIMEOUT_MS = 1_000;
/**
 * Longest connect of a position poll, and of a pooled connection of a replica, or of the primary
 * when there are replicas. A statement on an open connection is one round trip through this
 * process's event loop; a connect is several (the name's lookup, TCP, the startup and
 * authentication exchanges). Where each turn of the loop is slow (a saturated pod), a connect
 * bounded like a statement never completes: a replica whose connections were lost (restarted)
 * would never answer a poll again, or, back in the rotation, never get a pooled connection open
 * (each timeout counting as its failure); and the primary, whose pool is cold while the replicas
 * take the reads (its idle connections close), could not open the connections a failed replica's
 * reads fall back on, and would fail reads it is there to answer. Until a poll answers a replica
 * is out of the rotation anyway; a read waiting for a pooled connection longer than
 * DB_POOL_ACQUIRE_TIMEOUT_MS waits up to this instead.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Why a read meant for a replica went to the primary. Also decided by coherence/replica-reads.ts:
 * `behind_writes`, a response a replica answered without having replayed a write it depends on;
 * `no_lease`, a request made while this process had no coherence lease (it might not hear a write);
 * `server_changed`, a response read while the replica's polls moved to another server.
 */
export type ReplicaReadFallback = 'behind_writes' | 'no_lease' | 'server_changed';
export type ReadFallback = 'none_in_rotation' | StatementFallback | ReplicaReadFallback;
/** What failed on a target: a statement, an idle pooled connection, a position poll. */
export type TargetFailure = 'statement' | 'connection' | 'poll';

/** What the targets report (metrics/metrics.ts counts it). */
export interface ReadTargetReport {
  statement(target: string): void;
  failure(target: string, failed: TargetFailure): void;
  fallback(reason: ReadFallback): void;
}

/**
 * A server reads can be sent to, with everything a request scope reads through: its own pool
 * (and admission gate, and 503s), repositories and app-wide DataLoader batchers.
 */
export interface ReadTarget {
  /** `primary`, or `replica-1`, `replica-2`, … in DATABASE_READ_URLS order: the metrics' `target` label. */
  readonly name: string;
  readonly repositories: Repositories;
  readonly batchers: SharedBatchers;
  /**
   * Every write whose commit position is at most this is visible to statements sent here from
   * now on: a replica's replay position as last polled (at most ~100 ms old; a lower bound, since
   * replay only moves forward), `LSN_MAX` on the primary. Read it before the first statement.
   */
  replayedLsn(): Lsn;
  /**
   * How many times the server this target's positions are read from changed (a load-balanced
   * address reaching another replica): a read whose statements began under one count and ended
   * under another may have run on a server `replayedLsn` did not describe. 0 on the primary.
   */
  serverChanges(): number;
}

/** What a target's reads go through, made over its pool by the composition root (app.ts). */
export type TargetReaders = Pick<ReadTarget, 'repositories' | 'batchers'>;
export type ReadersOf = (db: Database) => TargetReaders;

/** A target over its pool: the repositories and batchers every target reads through. */
abstract class DatabaseTarget<D extends Database> implements ReadTarget {
  readonly name: string;
  readonly repositories: Repositories;
  readonly batchers: SharedBatchers;

  constructor(
    readonly db: D,
    readersOf: ReadersOf,
  ) {
    this.name = db.name;
    ({ repositories: this.repositories, batchers: this.batchers } = readersOf(db));
  }

  abstract replayedLsn(): Lsn;
  abstract serverChanges(): number;
}

export class PrimaryTarget extends DatabaseTarget<Database> {
  constructor(
    db: Database,
    readonly position: PrimaryPosition,
    readersOf: ReadersOf,
  ) {
    super(db, readersOf);
  }

  replayedLsn(): Lsn {
    return LSN_MAX;
  }

  serverChanges(): number {
    return 0;
  }

  /** The primary's WAL position read now: at or past the commit of every write acknowledged before the call. */
  currentLsn(): Promise<Lsn> {
    return this.position.current();
  }
}

export class ReplicaTarget extends DatabaseTarget<ReplicaDatabase> {
  constructor(
    db: ReplicaDatabase,
    readonly health: ReplicaHealth,
    readersOf: ReadersOf,
  ) {
    super(db, readersOf);
  }

  replayedLsn(): Lsn {
    return this.health.replayedLsn();
  }

  serverChanges(): number {
    return this.health.serverChanges;
  }

  inRotation(now = performance.now()): boolean {
    return this.health.inRotation(now);
  }
}

/**
 * The primary and the streaming replicas reads may go to (`services.reads`). Writes, and
 * everything a write returns, use `primary`; a read that may be served by a replica asks
 * `pickReplica()`. Every target's WAL position is polled every POLL_INTERVAL_MS on a connection
 * of its own; replicas leave and rejoin the rotation on what those polls and their statements
 * say (see ReplicaHealth).
 */
export class ReadTargets {
  /** Where the next pick starts looking, so equally busy replicas take turns. */
  private turn = 0;

  constructor(
    readonly primary: PrimaryTarget,
    readonly replicas: readonly ReplicaTarget[],
    private readonly report: ReadTargetReport,
    private readonly closers: (() => Promise<void>)[],
  ) {}

  /**
   * A replica in the rotation, the least busy (fewest statements running or queued in its
   * pool) and, among equally busy ones, the next in turn; the primary when none is in the
   * rotation (or none is configured). Least busy rather than plain round robin: a replica that
   * answers slowly (replaying a burst, on a busier host) holds its statements longer and is given
   * fewer, instead of a fixed share that queues up behind it; at low load every count is 0 and
   * it is round robin.
   */
  pickReplica(now = performance.now()): ReadTarget {
    const count = this.replicas.length;
    if (count === 0) return this.primary;
    let best: ReplicaTarget | undefined;
    for (let step = 0; step < count; step += 1) {
      const replica = this.replicas[(this.turn + step) % count]!;
      if (replica.inRotation(now) && (!best || replica.db.load < best.db.load)) best = replica;
    }
    this.turn = (this.turn + 1) % count;
    if (best) return best;
    this.report.fallback('none_in_rotation');
    return this.primary;
  }

  async close(): Promise<void> {
    await Promise.all(this.closers.map((close) => close()));
  }
}

export interface ReadTargetDependencies {
  report: ReadTargetReport;
  readersOf: ReadersOf;
  onAdmissionReject: DatabaseOptions['onAdmissionReject'];
  logger: Logger;
}

/** The target names of a configuration: `primary`, then `replica-1`, `replica-2`, … */
export function targetNames(config: Pick<Config, 'DATABASE_READ_URLS'>): string[] {
  return ['primary', ...config.DATABASE_READ_URLS.map((_, index) => `replica-${index + 1}`)];
}

/**
 * A replica's poll: whether it is a standby, how far it replayed, and what its WAL receiver
 * streams (a role without pg_read_all_stats sees the receiver's pid only, its status null).
 */
const REPLICA_POLL_QUERY = `SELECT ${SERVER_IDENTITY_SQL} AS server, pg_is_in_recovery() AS in_recovery, pg_last_wal_replay_lsn()::text AS replayed,
  receiver.pid IS NOT NULL AND receiver.status IS NULL AS receiver_hidden,
  CASE WHEN receiver.status = 'streaming' THEN receiver.received_tli END AS streamed_timeline
  FROM (SELECT) AS poll LEFT JOIN pg_stat_wal_receiver AS receiver ON true`;

interface ReplicaPollRow {
  server: string;
  in_recovery: boolean;
  replayed: string | null;
  receiver_hidden: boolean;
  streamed_timeline: number | null;
}

const replicaSample = (row: ReplicaPollRow): ReplicaSample => ({
  server: row.server,
  inRecovery: row.in_recovery,
  // Named by the timeline it streams (0: none, behind every position of the primary's).
  replayed: row.replayed === null ? null : onTimeline(row.receiver_hidden ? 0 : (row.streamed_timeline ?? 0), row.replayed),
  streamedTimeline: row.receiver_hidden ? 'hidden' : row.streamed_timeline,
});

/** The targets of DATABASE_URL and DATABASE_READ_URLS, each polled from now on until `close()`. */
export function createReadTargets(config: Config & { DATABASE_URL: string }, deps: ReadTargetDependencies): ReadTargets {
  const { report, logger } = deps;
  const closers: (() => Promise<void>)[] = [];
  const poolOptions = (name: string, url: string): DatabaseOptions => ({
    name,
    url,
    poolMax: config.DB_POOL_MAX,
    acquireTimeoutMs: config.DB_POOL_ACQUIRE_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    maxQueue: config.DB_QUEUE_MAX,
    maxQueueWaitMs: config.DB_QUEUE_MAX_WAIT_MS,
    onAdmissionReject: deps.onAdmissionReject,
    onUnavailable: (failed) => report.failure(name, failed),
    logger,
  });
  const counted = <D extends Database>(db: D): D => {
    db.statements.on('statement', () => report.statement(db.name));
    closers.push(() => db.close());
    return db;
  };
  const monitor = (url: string) => {
    const connection = new MonitorConnection(url, { connectTimeoutMs: CONNECT_TIMEOUT_MS, statementTimeoutMs: POLL_TIMEOUT_MS });
    closers.push(() => connection.close());
    return connection;
  };
  // Polls stop before their connections close.
  const poll = (step: () => Promise<void>) => {
    const stop = repeatEvery(POLL_INTERVAL_MS, step);
    closers.unshift(async () => stop());
  };

  const connectAllowance = Math.max(config.DB_POOL_ACQUIRE_TIMEOUT_MS, CONNECT_TIMEOUT_MS);
  const hasReplicas = config.DATABASE_READ_URLS.length > 0;
  const primaryDb = counted(
    new Database({
      ...poolOptions('primary', config.DATABASE_URL),
      announcesOwnWrites: true,
      ...(hasReplicas && { acquireTimeoutMs: connectAllowance }),
    }),
  );
  const position = new PrimaryPosition(monitor(config.DATABASE_URL), (error) => {
    report.failure('primary', 'poll');
    logger.debug({ target: 'primary', err: error }, "cannot read the primary's WAL position");
  });
  // Its history only measures replicas' lag: without replicas the primary is not polled.
  if (hasReplicas) poll(() => position.current().then(noop, noop));
  const primary = new PrimaryTarget(primaryDb, position, deps.readersOf);

  const replicas = config.DATABASE_READ_URLS.map((url, index) => {
    const name = `replica-${index + 1}`;
    const health = new ReplicaHealth(position.history, config.DATABASE_READ_MAX_LAG_MS);
    const failed = (what: TargetFailure) => {
      health.failed(performance.now());
      report.failure(name, what);
    };
    const db = counted(
      new ReplicaDatabase({
        ...poolOptions(name, url),
        acquireTimeoutMs: connectAllowance,
        onUnavailable: failed,
        primary: primaryDb,
        inRotation: () => health.inRotation(performance.now()),
        polledServer: () => health.polledServer,
        onFallback: (reason) => report.fallback(reason),
      }),
    );
    const connection = monitor(url);
    let reportedInRotation: boolean | undefined;
    poll(async () => {
      const sentAt = performance.now();
      let pollError: unknown;
      try {
        const row = await connection.row<ReplicaPollRow>(REPLICA_POLL_QUERY);
        health.answered(replicaSample(row), sentAt, performance.now());
      } catch (error) {
        failed('poll');
        pollError = error;
      }
      // Said once per change (and after the first poll): joining, or leaving and why.
      const because = health.outOfRotationBecause(performance.now());
      if ((because === undefined) !== reportedInRotation) {
        reportedInRotation = because === undefined;
        if (reportedInRotation) logger.info({ target: name }, 'read replica joins the rotation');
        else logger.warn({ target: name, because, err: pollError }, 'read replica is out of the rotation');
      }
    });
    return new ReplicaTarget(db, health, deps.readersOf);
  });
  return new ReadTargets(primary, replicas, report, closers);
}

const noop = () => undefined;

import type { Lsn } from './lsn.js';
import type { WalHistory } from './wal-history.js';

/** A replica not heard from for this long leaves the rotation (frozen, or its polls hang). */
export const POLL_STALE_MS = 2_000;

export interface ReplicaSample {
  /** The server the poll reached (server-identity.ts). */
  server: string;
  inRecovery: boolean;
  /** `pg_last_wal_replay_lsn()`: null on a server that is not a standby. */
  replayed: Lsn | null;
  /**
   * The timeline its WAL receiver streams (`pg_stat_wal_receiver.received_tli` while `streaming`):
   * null when it streams nothing, `hidden` when the gateway's role may not see it (it needs
   * `pg_read_all_stats`).
   */
  streamedTimeline: number | null | 'hidden';
}

interface Polled extends ReplicaSample {
  /** When the poll was sent and answered (performance.now()). */
  sentAt: number;
  answeredAt: number;
}

/**
 * What the gateway knows of one replica, from its polls and from the statements sent to it, and
 * whether it may serve reads now. It is in the rotation while all of these hold:
 * - it answered a poll within POLL_STALE_MS, sent after its last failure (a failed statement
 *   or poll);
 * - it is in recovery (a promoted replica is another timeline: its positions mean nothing here);
 * - its WAL receiver streams the timeline the primary was last seen on: after a failover, a
 *   standby that heard the old primary for longer than the promoted one holds WAL of the old
 *   timeline past the promotion point, under the same positions the new primary's writes take,
 *   and can follow neither (gateway/README.md, "Consistency", rule 8);
 * - it has replayed at least as far as it was ever seen to: a standby restarted after a crash
 *   may resume from an earlier point, and a read there must not see older data than a read
 *   before the crash did (that is what makes the sampled position a lower bound);
 * - its lag (how long ago the primary moved past its replay position) is known and within the
 *   bound: a replica behind everything the primary was seen at (at start-up, before the first
 *   poll of the primary, or once its lag is beyond the history kept) stays out.
 */
export class ReplicaHealth {
  private polled: Polled | undefined;
  /** The furthest replay position ever seen. */
  private highWater: Lsn = 0n;
  private failedAt = Number.NEGATIVE_INFINITY;
  /** How many times a poll reached another server than the poll before it. */
  private changes = 0;

  constructor(
    private readonly primaryHistory: WalHistory,
    private readonly maxLagMs: number,
  ) {}

  /** A poll sent at `sentAt` answered `sample` at `answeredAt`. */
  answered(sample: ReplicaSample, sentAt: number, answeredAt: number): void {
    if (this.polled && this.polled.server !== sample.server) this.changes += 1;
    this.polled = { ...sample, sentAt, answeredAt };
    if (sample.replayed !== null && sample.replayed > this.highWater) this.highWater = sample.replayed;
  }

  /** A poll or statement failed for availability reasons at `at`. */
  failed(at: number): void {
    this.failedAt = Math.max(this.failedAt, at);
  }

  /** The server the last poll reached: the one `replayedLsn` describes (undefined before the first). */
  get polledServer(): string | undefined {
    return this.polled?.server;
  }

  /** How many times the polls moved to another server (ReadTarget.serverChanges). */
  get serverChanges(): number {
    return this.changes;
  }

  /**
   * Every write whose commit position is at most this is visible on the polled server: the replay
   * position of the last poll (0 before the first).
   */
  replayedLsn(): Lsn {
    return this.polled?.replayed ?? 0n;
  }

  /**
   * How long ago the primary moved past the last sampled replay position (ms); when that is
   * unknown (behind every position the primary was seen at), the least it can be. Undefined
   * before the first poll.
   */
  lagMs(now: number): number | undefined {
    const replayed = this.polled?.replayed;
    if (replayed === undefined || replayed === null) return undefined;
    return this.primaryHistory.lagMs(replayed, now) ?? this.primaryHistory.spanMs(now);
  }

  inRotation(now: number): boolean {
    return this.outOfRotationBecause(now) === undefined;
  }

  /** Why the replica is out of the rotation now, or undefined when it is in. */
  outOfRotationBecause(now: number): string | undefined {
    const polled = this.polled;
    if (!polled) return 'no poll answered yet';
    if (polled.sentAt <= this.failedAt) return 'no poll answered since it failed';
    if (now - polled.answeredAt > POLL_STALE_MS) return `no poll answered for ${POLL_STALE_MS} ms`;
    if (!polled.inRecovery || polled.replayed === null) return 'not in recovery: not a standby, or promoted';
    if (polled.streamedTimeline === 'hidden') {
      return "cannot see its WAL receiver (pg_stat_wal_receiver): the gateway's role needs pg_read_all_stats to tell which primary it follows";
    }
    if (polled.streamedTimeline === null) return 'its WAL receiver streams nothing: it may not follow the current primary';
    // Before the primary's first poll its timeline is unknown, and so is the lag (below).
    const primaryTimeline = this.primaryHistory.timeline;
    if (primaryTimeline !== undefined && polled.streamedTimeline !== primaryTimeline) {
      return `streams timeline ${polled.streamedTimeline} while the primary is on timeline ${primaryTimeline}`;
    }
    if (polled.replayed < this.highWater) return 'replaying from before the furthest position it was seen at (restarted)';
    const lagMs = this.primaryHistory.lagMs(polled.replayed, now);
    if (lagMs === undefined) {
      return `behind every position the primary was seen at: lag unknown, at least ${Math.round(this.primaryHistory.spanMs(now))} ms`;
    }
    return lagMs > this.maxLagMs ? `replay lag ${Math.round(lagMs)} ms exceeds ${this.maxLagMs} ms` : undefined;
  }
}

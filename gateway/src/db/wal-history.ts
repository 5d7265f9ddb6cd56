import { timelineOfPosition, type Lsn } from './lsn.js';

/**
 * How far back positions are kept: over twice the largest DATABASE_READ_MAX_LAG_MS, and a few
 * thousand samples at most, since one is kept per poll that saw the primary move.
 */
export const HISTORY_MS = 10 * 60_000;

interface Sample {
  lsn: Lsn;
  /** When the primary was first seen at `lsn` (performance.now()). */
  at: number;
}

/**
 * The primary's WAL position over time, from its polls: turns a replica's replay position into a
 * lag in time — how long ago the primary moved past that position. A replica that has replayed
 * everything the primary wrote has lag 0, however long ago the last write was, so an idle system
 * never looks lagged (byte distances would say nothing about time, and "time since the last
 * replayed commit" would grow forever on an idle system).
 */
export class WalHistory {
  /** Positions strictly increasing, each with the first time it was seen. */
  private samples: Sample[] = [];

  /** The primary was at `lsn` at time `at` (performance.now()). */
  record(lsn: Lsn, at: number): void {
    const latest = this.samples.at(-1);
    if (latest && lsn === latest.lsn) return;
    // Positions never go back on one server, nor through a failover (the new timeline is above
    // the old one): one that does is another server, whose history starts afresh.
    if (latest && lsn < latest.lsn) this.samples = [];
    this.samples.push({ lsn, at });
    const expired = this.samples.findIndex((sample) => sample.at >= at - HISTORY_MS);
    if (expired > 0) this.samples.splice(0, expired);
  }

  /** The timeline the primary was last seen on (undefined before its first sample). */
  get timeline(): number | undefined {
    const latest = this.samples.at(-1);
    return latest && timelineOfPosition(latest.lsn);
  }

  /** The primary's last sampled position, if any. */
  get latest(): Lsn | undefined {
    return this.samples.at(-1)?.lsn;
  }

  /**
   * How long before `now` the primary first moved past `replayed` (ms): 0 when it has not been
   * seen past it, measured from the first sample beyond it (so it may be short by one poll).
   * Undefined when `replayed` is behind every sample kept, or there is none yet: the lag is then
   * unknown, at least `spanMs(now)` (a replica found behind the primary's first position at
   * start-up, or behind for longer than HISTORY_MS).
   */
  lagMs(replayed: Lsn, now: number): number | undefined {
    const samples = this.samples;
    if (samples.length === 0 || replayed < samples[0]!.lsn) return undefined;
    // Binary search for the first sample beyond `replayed`.
    let low = 0;
    let high = samples.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (samples[middle]!.lsn > replayed) high = middle;
      else low = middle + 1;
    }
    const beyond = samples[low];
    return beyond ? Math.max(0, now - beyond.at) : 0;
  }

  /** How long before `now` the oldest sample kept was taken (0 with none). */
  spanMs(now: number): number {
    const oldest = this.samples[0];
    return oldest ? Math.max(0, now - oldest.at) : 0;
  }
}

import { ServiceUnavailableError } from '../errors.js';
import { onTimeline, timelineOf, type Lsn } from './lsn.js';
import type { MonitorConnection } from './monitor-connection.js';
import { WalHistory } from './wal-history.js';

/**
 * The insert position, and the name of the WAL file it is in, which names the primary's
 * timeline: a promoted server writes on a new one from the moment it is promoted.
 */
const POSITION_QUERY = 'SELECT pg_current_wal_insert_lsn()::text AS lsn, pg_walfile_name(pg_current_wal_insert_lsn()) AS wal_file';

/**
 * The primary's WAL position: read on demand (`current()`), and by the poll that keeps the
 * history replicas' lag is measured against. Reads share one connection outside the pool.
 */
export class PrimaryPosition {
  readonly history = new WalHistory();
  private inFlight: Promise<Lsn> | undefined;
  private queued: Promise<Lsn> | undefined;

  constructor(
    private readonly connection: MonitorConnection,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  /**
   * The primary's position read after this call began: every commit acknowledged before the call
   * is at or below it. The insert position, not `pg_current_wal_lsn()` (the write position):
   * with `synchronous_commit=off` a commit is acknowledged once its record is inserted, before
   * it is written, so the write position can be below it. Concurrent callers share a read, but
   * never one that was sent before they asked: they wait for the next.
   */
  current(): Promise<Lsn> {
    if (this.queued) return this.queued;
    if (!this.inFlight) return this.read();
    const queued = this.inFlight
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.queued = undefined;
        return this.read();
      });
    this.queued = queued;
    return queued;
  }

  private read(): Promise<Lsn> {
    const reading = this.connection.row<{ lsn: string; wal_file: string }>(POSITION_QUERY).then(
      ({ lsn, wal_file: walFile }) => {
        const position = onTimeline(timelineOf(walFile), lsn);
        this.history.record(position, performance.now());
        return position;
      },
      (error: unknown) => {
        this.onFailure(error);
        throw new ServiceUnavailableError("database unavailable: cannot read the primary's WAL position", 2, { cause: error });
      },
    );
    this.inFlight = reading;
    reading.then(
      () => this.settled(reading),
      () => this.settled(reading),
    );
    return reading;
  }

  private settled(reading: Promise<Lsn>): void {
    if (this.inFlight === reading) this.inFlight = undefined;
  }
}

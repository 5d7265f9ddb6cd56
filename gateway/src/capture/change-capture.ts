import type { Logger } from 'pino';
import { CATALOG_CHANGED_CHANNEL } from '@catalog/contract';
import { listenOn } from '../db/listening-connection.js';
import type { CatalogChange } from '../events/catalog-events.js';
import { anyWaiting, claimWaiting, type ClaimedBatch } from './change-log.js';

/**
 * How often the log is claimed from without a notification. A statement that found an older
 * entry waiting sends none (contract/sql/capture.sql): its entry, if its transaction commits
 * after the last claim of the run that took the older one, waits for this poll, which bounds
 * that extra delay; short, so such a change is not much later than a notified one, and cheap
 * while nothing changes (one statement on an empty log). Also catches a NOTIFY lost with a
 * connection, and entries given back by a gateway that failed or froze holding them.
 */
export const CLAIM_EVERY_MS = 100;
/**
 * Postgres ends a claim whose gateway went quiet this long inside it (frozen, partitioned), so its
 * entries go to another gateway; longer than an announcement takes (a confirm retried for a
 * lease, then a lease of acknowledgements).
 */
export const CLAIM_IDLE_TIMEOUT_MS = 3_000;
/**
 * The promise (gateway/README.md, rule 11): a change committed outside the gateway is let go of
 * by every tier within this long, while the primary and Redis answer. The worst case it covers:
 * its statement sent no NOTIFY and it committed after the claimers' last claim (a poll,
 * CLAIM_EVERY_MS), the gateway that claimed it froze (CLAIM_IDLE_TIMEOUT_MS until Postgres gives
 * the claim back), the next claim (a poll again: nobody is notified of a claim given back), and
 * its announcement (a lease at most, waiting for members).
 */
export const CAPTURE_BOUND_MS = 5_000;
/** SQLSTATE undefined_table: the change log was never installed (no loader run since capture existed). */
const UNDEFINED_TABLE = '42P01';

/** Where captured changes go: the coherence protocol (and, with a CDN, its purges). */
export interface CapturedChangeSink {
  /** A committed change, `lsn` at or past its commit; resolves once every tier let go of what it replaced. */
  changed(change: CatalogChange, lsn: bigint): Promise<void>;
  /** Something changed that no list of products names: every tier drops everything. */
  everything(reason: string): Promise<void>;
}

export interface ChangeCaptureOptions {
  /** The primary. */
  url: string;
  sink: CapturedChangeSink;
  logger: Logger;
  /** Counts claimed entries, and each one's delay from its statement to every tier having let go. */
  onAnnounced: (kind: ClaimedBatch['claimed']['kind'], delaysSeconds: number[]) => void;
  onFailure: (operation: 'connect' | 'claim') => void;
}

export interface ChangeCapture {
  close(): Promise<void>;
}

/**
 * Follows the change log (gateway/README.md, "Consistency", rule 11) on a connection of its own
 * to the primary: it LISTENs for the triggers' NOTIFY, claims what waits in the log until a claim
 * comes back empty whenever one arrives, every CLAIM_EVERY_MS, and at once on every (re)connect
 * (a backlog left while no gateway listened is replayed), and hands the claimed changes to the sink.
 */
export function followChangeCapture(options: ChangeCaptureOptions): ChangeCapture {
  const { logger } = options;
  let closed = false;
  let claiming: Promise<void> | undefined;
  let claimAgain = false;
  let warnedNotInstalled = false;

  const announce = async ({ claimed, lsn, waitedSeconds }: ClaimedBatch) => {
    const started = performance.now();
    if (claimed.kind === 'everything') {
      logger.warn({ reason: claimed.reason }, 'captured a change too large to name: every cache drops everything');
      await options.sink.everything(claimed.reason);
    } else {
      for (const change of claimed.changes) await options.sink.changed(change, lsn);
    }
    const announcedSeconds = (performance.now() - started) / 1_000;
    options.onAnnounced(
      claimed.kind,
      waitedSeconds.map((waited) => waited + announcedSeconds),
    );
  };

  /**
   * Claims until the log is empty (or all of it claimed elsewhere); one run at a time, another
   * after it if asked meanwhile. A poll first asks whether anything waits at all.
   */
  const claim = (polled = false) => {
    const connection = listening.client;
    if (!connection || closed) return;
    if (claiming) {
      claimAgain = true;
      return;
    }
    claiming = (async () => {
      try {
        if (!polled || (await anyWaiting(connection))) await claimWaiting(connection, announce, () => closed);
        warnedNotInstalled = false;
      } catch (error) {
        if ((error as { code?: string }).code === UNDEFINED_TABLE) {
          if (!warnedNotInstalled)
            logger.warn({ err: error }, 'change capture is not installed in the database (a loader run installs it)');
          warnedNotInstalled = true;
          return;
        }
        // The entries stay in the log for the next claim; a broken connection is made anew.
        options.onFailure('claim');
        logger.warn({ err: error }, 'could not announce captured changes; they stay in the log and are claimed again');
      }
    })().finally(() => {
      claiming = undefined;
      if (claimAgain) {
        claimAgain = false;
        claim();
      }
    });
  };

  const listening = listenOn({
    url: options.url,
    channel: CATALOG_CHANGED_CHANNEL,
    applicationName: 'catalog-gateway-capture',
    idleInTransactionTimeoutMs: CLAIM_IDLE_TIMEOUT_MS,
    purpose: 'change log follower',
    logger,
    onNotification: () => claim(),
    // A backlog left while nobody listened is claimed at once.
    onListening: () => claim(),
    onConnectFailure: () => options.onFailure('connect'),
  });

  const poll = setInterval(() => claim(true), CLAIM_EVERY_MS);
  poll.unref();
  return {
    async close() {
      closed = true;
      clearInterval(poll);
      await claiming;
      await listening.close();
    },
  };
}

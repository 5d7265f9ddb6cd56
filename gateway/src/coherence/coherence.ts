import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ReadTarget, ReadTargets, ReplicaReadFallback } from '../db/read-targets.js';
import type { EdgePurger } from '../cdn/edge-purger.js';
import type { CatalogEvents } from '../events/catalog-events.js';
import { COHERENCE_PROTOCOL } from '../redis/keys.js';
import type { SharedRedis } from '../redis/shared-redis.js';
import { RedisClock, type ClockPosition } from './clock.js';
import { HeardVersions, type HeardVerdict } from './heard-versions.js';
import { Membership, type ResetReason } from './membership.js';
import { ProtocolPresence } from './protocol-presence.js';
import { ReadRequirements } from './read-requirements.js';
import { ReplicaReads, type TaggedResult } from './replica-reads.js';
import { LocalWriteAnnouncer, RedisWriteAnnouncer, type WriteAnnouncer } from './write-announcer.js';

/**
 * What the response cache and the writes ask of the coherence protocol (gateway/README.md,
 * "Consistency"): whether this process may trust what it keeps in memory now, the position a
 * read beginning now is stamped with, what responses must not have been read before, and how a
 * write is announced.
 */
export interface Coherence {
  /** Rule 5: the in-process cache may be served and filled, and replicas read. Always true without Redis. */
  readonly leaseHeld: boolean;
  /** Rule 12: no release of another coherence protocol can be live unseen, so what is kept in Redis may be read. */
  readonly alone: boolean;
  /** Rule 2: where this process is in the invalidation history; undefined without Redis or before it first reached Redis. */
  readonly position: ClockPosition | undefined;
  /** The Redis clock, for the shared cache's scripts; undefined without Redis. */
  readonly clock: RedisClock | undefined;
  /**
   * Rule 1, answered in this process: a Redis entry read at `readAt` with `tags` is valid or
   * stale by what this process heard while its lease holds, else `unknown` (Redis's check decides).
   */
  judgeShared(readAt: ClockPosition, tags: readonly string[]): HeardVerdict;
  readonly requirements: ReadRequirements;
  /** Rule 8: runs a read on a replica when it may, else on the primary. */
  readOn<Result extends TaggedResult>(compute: (target: ReadTarget) => Promise<Result>): Promise<Result>;
  readonly writes: WriteAnnouncer;
  /**
   * Resolves once this process has joined the clock (so its first responses can be shared), or
   * after `timeoutMs` if Redis cannot be reached: it then serves from Postgres until it can.
   */
  joined(timeoutMs: number): Promise<void>;
  stop(): void;
}

export interface CoherenceOptions {
  events: CatalogEvents;
  /** Absent without Redis: one process, nothing to coordinate. */
  redis: SharedRedis | undefined;
  /** The primary and the streaming replicas reads may use. */
  reads: ReadTargets;
  /** Counts a read meant for a replica that went to the primary, by reason. */
  onFallback: (reason: ReplicaReadFallback) => void;
  /** REDIS_WRITE_WAIT_MS */
  writeWaitMs: number;
  /** How long a tag's version must outlive any response stored under it. */
  versionTtlMs: number;
  report: CoherenceReport;
  logger: Logger;
  /** Purges the shared caches in front of the fleet: everything, once per catalog swap. */
  edgePurger: Pick<EdgePurger, 'purgeAll'>;
}

/** What coherence reports (into the metrics, given by app.ts). */
export interface CoherenceReport {
  /** This process dropped everything it kept (see Membership's onReset). */
  reset(reason: ResetReason): void;
  /** How long a write waited for every replica to process it. */
  ackWait(seconds: number): void;
  /** Whether the lease holds, to be read whenever it is wanted. */
  lease(held: () => boolean): void;
  /** How many other coherence protocols are live beside this one (rule 12), to be read whenever it is wanted. */
  otherProtocols(count: () => number): void;
}

export function startCoherence(options: CoherenceOptions): Coherence {
  const { events, redis, reads, report, logger } = options;
  // Positions matter only when there are replicas to route reads to.
  const primaryLsn = reads.replicas.length > 0 ? () => reads.primary.currentLsn() : undefined;
  const requirements = new ReadRequirements(events, primaryLsn, (error) =>
    logger.warn({ err: error }, "cannot read the primary's WAL position: replicas stay out of use until it answers"),
  );
  if (!redis) {
    // One process, nothing to share the swap with: it purges.
    events.on('swapped', () => options.edgePurger.purgeAll());
    const replicaReads = new ReplicaReads(reads, requirements, () => true, options.onFallback);
    return {
      leaseHeld: true,
      alone: true,
      position: undefined,
      clock: undefined,
      judgeShared: () => 'unknown',
      requirements,
      readOn: (compute) => replicaReads.run(compute),
      writes: new LocalWriteAnnouncer({ events, primaryLsn, logger }),
      joined: async () => {},
      stop: () => {},
    };
  }
  const clock = new RedisClock(redis);
  const heard = new HeardVersions();
  events.on('swapped', () => heard.swapped());
  const member = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const presence = new ProtocolPresence(COHERENCE_PROTOCOL, member);
  const membership = new Membership({
    clock,
    subscriber: redis.subscriber,
    channel: redis.invalidationChannel,
    member,
    events,
    heard,
    presence,
    logger,
    onRedisError: redis.failed,
    onReset: (reason) => report.reset(reason),
  });
  const stopSwaps = followSwapsInRedis(events, clock, options.edgePurger, logger, redis.failed);
  const replicaReads = new ReplicaReads(reads, requirements, () => membership.leaseHeld, options.onFallback);
  report.lease(() => membership.leaseHeld);
  report.otherProtocols(() => membership.otherProtocols);
  return {
    get leaseHeld() {
      return membership.leaseHeld;
    },
    get alone() {
      return membership.alone;
    },
    get position() {
      return membership.processed;
    },
    clock,
    judgeShared: (readAt, tags) => (membership.leaseHeld ? heard.judge(readAt, tags) : 'unknown'),
    requirements,
    readOn: (compute) => replicaReads.run(compute),
    writes: new RedisWriteAnnouncer({
      events,
      primaryLsn,
      logger,
      clock,
      heard,
      waitMs: options.writeWaitMs,
      versionTtlMs: options.versionTtlMs,
      onRedisError: redis.failed,
      observeAckWait: (seconds) => report.ackWait(seconds),
      presence,
    }),
    async joined(timeoutMs) {
      const timeout = sleep(timeoutMs, undefined, { ref: false });
      await Promise.race([membership.firstLease, timeout]);
    },
    stop() {
      membership.stop();
      stopSwaps();
    },
  };
}

/**
 * Rule 9: a catalog swap starts a new epoch in Redis, once per swap id (an unknown swap — the
 * listener reconnected — always does). Retried until Redis takes it: until then other replicas
 * may still take responses of the old catalog from Redis. The process whose call started the
 * epoch purges the shared caches of everything, once for the fleet; so does one whose call
 * failed before (its script may have run with the answer lost: a second purge costs refetches,
 * a missing one would leave the old catalog at the edge for `s-maxage`).
 */
function followSwapsInRedis(
  events: CatalogEvents,
  clock: RedisClock,
  edgePurger: Pick<EdgePurger, 'purgeAll'>,
  logger: Logger,
  onRedisError: (operation: string, error: unknown) => void,
): () => void {
  let stopped = false;
  events.on('swapped', async ({ swapId }) => {
    const id = swapId ?? `unknown-${randomBytes(8).toString('hex')}`;
    let failed = false;
    for (let delayMs = 100; !stopped; delayMs = Math.min(delayMs * 2, 2_000)) {
      try {
        const { epoch, started } = await clock.swap(id);
        logger.info({ swapId: id, epoch, started }, 'catalog swap: responses cached in Redis before it are void');
        if (started || failed) edgePurger.purgeAll();
        return;
      } catch (error) {
        failed = true;
        onRedisError('swap', error);
      }
      await sleep(delayMs);
    }
  });
  return () => {
    stopped = true;
  };
}

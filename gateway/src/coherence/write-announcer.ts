import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { ServiceUnavailableError } from '../errors.js';
import type { CatalogChange, CatalogEvents } from '../events/catalog-events.js';
import { tagsOfChange } from '../events/change-tags.js';
import type { ClockPosition, RedisClock } from './clock.js';
import type { HeardVersions } from './heard-versions.js';
import { LEASE_MS } from './lease.js';
import type { ProtocolPresence } from './protocol-presence.js';

/**
 * How long a write's tags stay pending when its confirm never reaches Redis. A write answers at
 * the latest this long (plus a lease) after its prepare, when no store can predate it any more.
 */
export const PENDING_MS = 10_000;

/** Runs a write between the two phases of its announcement (gateway/README.md, "Consistency", rule 4). */
export interface WriteAnnouncer {
  /**
   * Announces that `change` is about to happen, runs `write`, announces that it happened, and
   * resolves (or rejects with the write's own error) once no replica can serve what it replaced.
   */
  around<T>(change: CatalogChange, write: () => Promise<T>): Promise<T>;
  /**
   * Announces a change another writer already committed (change capture: confirm only, no
   * prepare; `lsn` bounds its commit) and resolves once no replica can serve what it replaced.
   * Rejects when Redis does not take it: the caller keeps the change and tries again.
   */
  committed(change: CatalogChange, lsn: bigint): Promise<void>;
}

export interface WriteAnnouncerOptions {
  events: CatalogEvents;
  /** The primary's WAL position after a commit; undefined without replicas to route reads to. */
  primaryLsn: (() => Promise<bigint>) | undefined;
  logger: Logger;
}

/** The write's WAL position for replicas, or undefined when unknown (readers then raise their floor instead). */
async function positionAfterCommit({ primaryLsn, logger }: WriteAnnouncerOptions): Promise<bigint | undefined> {
  if (!primaryLsn) return undefined;
  try {
    return await primaryLsn();
  } catch (error) {
    logger.warn({ err: error }, "could not read the primary's WAL position after a write: replicas wait for the primary's next one");
    return undefined;
  }
}

/** One process, no Redis: the write's effects are this process's events. */
export class LocalWriteAnnouncer implements WriteAnnouncer {
  constructor(private readonly options: WriteAnnouncerOptions) {}

  async around<T>(change: CatalogChange, write: () => Promise<T>): Promise<T> {
    await this.options.events.emit('changing', { ...change, pendingMs: PENDING_MS });
    try {
      return await write();
    } finally {
      await this.options.events.emit('changed', { ...change, lsn: await positionAfterCommit(this.options) });
    }
  }

  async committed(change: CatalogChange, lsn: bigint): Promise<void> {
    await this.options.events.emit('changed', { ...change, lsn });
  }
}

export interface RedisWriteAnnouncerOptions extends WriteAnnouncerOptions {
  clock: RedisClock;
  /** Where this process records its own phases, before any answer depends on them. */
  heard: HeardVersions;
  /** How long the prepare may wait for Redis before the write is refused (REDIS_WRITE_WAIT_MS). */
  waitMs: number;
  /** How long a tag's version outlives any response stored under it. */
  versionTtlMs: number;
  onRedisError: (operation: string, error: unknown) => void;
  /** How long writes waited for other members, after the commit (metrics). */
  observeAckWait: (seconds: number) => void;
  /** This process's protocol's beats: whether other protocols see it live (rule 12). */
  presence: Pick<ProtocolPresence, 'acknowledgeableIn'>;
}

/**
 * Writes announced through the Redis clock: prepare (or refuse the write), the write, confirm,
 * then wait until every member has processed the confirm or lost its lease.
 */
export class RedisWriteAnnouncer implements WriteAnnouncer {
  constructor(private readonly options: RedisWriteAnnouncerOptions) {}

  async around<T>(change: CatalogChange, write: () => Promise<T>): Promise<T> {
    const { clock, versionTtlMs, waitMs } = this.options;
    const tags = tagsOfChange(change);
    const prepared = await this.retried(
      'prepare',
      () => clock.announce('prepare', tags, { pendingMs: PENDING_MS, versionTtlMs, lsn: '' }),
      performance.now() + waitMs,
    );
    if (!prepared) {
      throw new ServiceUnavailableError(
        `the cache could not be told of this write (Redis did not answer within ${waitMs} ms): nothing was written`,
        1,
      );
    }
    const preparedAt = performance.now();
    // Applied here at once; its message, heard later, changes nothing more.
    this.options.heard.heard(prepared, tags);
    await this.options.events.emit('changing', { ...change, pendingMs: PENDING_MS });
    // Whatever the write's outcome (an error may come after a commit), its tags are confirmed.
    let outcome: { result: T } | { error: unknown };
    try {
      outcome = { result: await write() };
    } catch (error) {
      outcome = { error };
    }
    const committedAt = performance.now();
    const lsn = await positionAfterCommit(this.options);
    await this.options.events.emit('changed', { ...change, lsn });
    const giveUpAt = preparedAt + PENDING_MS + LEASE_MS;
    await this.confirm(tags, lsn, giveUpAt);
    await this.untilSeenByOtherProtocols(committedAt, giveUpAt);
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }

  async committed(change: CatalogChange, lsn: bigint): Promise<void> {
    const { clock, versionTtlMs } = this.options;
    const tags = tagsOfChange(change);
    await this.options.events.emit('changed', { ...change, lsn });
    // Retried for a lease, not REDIS_WRITE_WAIT_MS: the caller holds its claim on the change
    // meanwhile, and gives it back sooner for another gateway (or itself) to try again.
    const confirmed = await this.retried(
      'confirm',
      () => clock.announce('confirm', tags, { pendingMs: 0, versionTtlMs, lsn: lsn.toString() }),
      performance.now() + LEASE_MS,
    );
    if (!confirmed) throw new ServiceUnavailableError(`Redis did not take a captured change's confirm within ${LEASE_MS} ms`, 1);
    this.options.heard.heard(confirmed, tags);
    const started = performance.now();
    await this.untilAcknowledged(confirmed, started + LEASE_MS);
    this.options.observeAckWait((performance.now() - started) / 1_000);
    // Read from the log after it committed: that read stands for its commit.
    await this.untilSeenByOtherProtocols(started, started + 2 * LEASE_MS);
  }

  /**
   * Rule 12: until no member of another protocol sharing Redis can serve what a write committed
   * by `committedAt` replaced, though none of them hears its announcement: this process's protocol
   * was seen live by them from before the commit, for a lease. Throws once `deadline` passes (Redis
   * took no beat of this process meanwhile): the write is done, but other releases may not know.
   */
  private async untilSeenByOtherProtocols(committedAt: number, deadline: number): Promise<void> {
    for (;;) {
      const waitMs = this.options.presence.acknowledgeableIn(committedAt);
      if (waitMs === 0) return;
      const leftMs = deadline - performance.now();
      if (leftMs <= 0) {
        throw new ServiceUnavailableError(
          'the write was made, but Redis took no presence beat of this gateway since: a release of another coherence protocol beside it may still serve what it replaced',
          1,
        );
      }
      // Undefined until a renewal beats again: renewals run four times a lease.
      await sleep(Math.min(waitMs ?? 25, leftMs));
    }
  }

  /**
   * Confirms in Redis and waits for the members; or, when Redis does not take the confirm, waits
   * until the pending marks and every lease granted before have run out (then no replica can
   * store or serve what the write replaced), and keeps trying to confirm in the background.
   */
  private async confirm(tags: string[], lsn: bigint | undefined, giveUpAt: number): Promise<void> {
    const { clock, versionTtlMs } = this.options;
    const confirmOnce = () => clock.announce('confirm', tags, { pendingMs: 0, versionTtlMs, lsn: lsn?.toString() ?? '' });
    const confirmed = await this.retried('confirm', confirmOnce, giveUpAt);
    if (!confirmed) {
      await sleep(Math.max(0, giveUpAt - performance.now()));
      this.options.logger.error(
        { tags },
        "Redis never took a write's confirm: it answered after its pending marks ran out; retrying the confirm",
      );
      void this.retried('confirm', confirmOnce, performance.now() + 10 * PENDING_MS);
      return;
    }
    this.options.heard.heard(confirmed, tags);
    const started = performance.now();
    await this.untilAcknowledged(confirmed, started + LEASE_MS);
    this.options.observeAckWait((performance.now() - started) / 1_000);
  }

  /**
   * Until every member of the clock processed `confirmed` and the clock has been there a lease (by
   * this process's clock: members of an older clock may hold leases nobody can see), or, at the
   * latest, until `deadline`: a lease granted before the confirm's answer arrived ends by then
   * (rule 5). Members still behind then are forgotten: any lease they hold was granted before the
   * confirm and has ended, and they join again with their next renewal.
   */
  private async untilAcknowledged(confirmed: ClockPosition, deadline: number): Promise<void> {
    const { clock } = this.options;
    let delayMs = 1;
    while (performance.now() < deadline) {
      try {
        const { waiting, replaced } = await clock.unacknowledged(confirmed, false);
        if (waiting === 0 && !replaced && clock.ageOf(confirmed.epoch) >= LEASE_MS) return;
      } catch (error) {
        this.options.onRedisError('acknowledgements', error);
      }
      await sleep(Math.min(delayMs, Math.max(0, deadline - performance.now())));
      delayMs = Math.min(delayMs * 2, 50);
    }
    await clock.unacknowledged(confirmed, true).catch((error) => this.options.onRedisError('acknowledgements', error));
  }

  /** `call` until it succeeds or `deadline` passes (undefined then), backing off between attempts. */
  private async retried<R>(operation: string, call: () => Promise<R>, deadline: number): Promise<R | undefined> {
    let delayMs = 50;
    for (;;) {
      try {
        return await call();
      } catch (error) {
        this.options.onRedisError(operation, error);
      }
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      await sleep(Math.min(delayMs, left));
      delayMs = Math.min(delayMs * 2, 500);
    }
  }
}

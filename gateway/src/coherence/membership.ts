import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { timelineOfPosition, type Lsn } from '../db/lsn.js';
import type { CatalogEvents } from '../events/catalog-events.js';
import { changeOfTags } from '../events/change-tags.js';
import type { ClockPosition, EpochCause, RedisClock, RenewalState } from './clock.js';
import type { HeardVersions } from './heard-versions.js';
import { LEASE_MARGIN_MS, LEASE_MS } from './lease.js';
import type { OtherProtocols, ProtocolPresence } from './protocol-presence.js';

/** How often a member renews its lease (and learns where the clock is), and beats for its protocol. */
const RENEW_EVERY_MS = 250;

/** Why a member dropped everything it kept. */
export type ResetReason = EpochCause | 'gap';

/** A message on the invalidation channel (see redis/scripts/clock.ts). */
export type InvalidationMessage =
  | { kind: 'epoch'; epoch: string; seq: number; cause: EpochCause }
  | { kind: 'prepare'; epoch: string; seq: number; tags: string[]; pendingMs: number }
  | { kind: 'confirm'; epoch: string; seq: number; tags: string[]; lsn: string };

export interface MembershipOptions {
  clock: RedisClock;
  subscriber: Redis;
  /** The clock's channel (SharedRedis.invalidationChannel), subscribed to on every (re)connect. */
  channel: string;
  member: string;
  events: CatalogEvents;
  /** Where every announcement this member processes, and every restart, is recorded. */
  heard: HeardVersions;
  /** Its protocol's beats, and what it saw of other protocols' (rule 12). */
  presence: ProtocolPresence;
  logger: Logger;
  /** A Redis call of the protocol failed (renew, subscribe): counted by the caller. */
  onRedisError: (operation: string, error: unknown) => void;
  /** Counts what made this member drop everything it kept (metrics): a new epoch and its cause, or a gap in what it heard. */
  onReset: (reason: ResetReason) => void;
}

/**
 * This process as a member of the coherence protocol (gateway/README.md, "Consistency", rules 5
 * and 6): it hears every invalidation, in order, and turns it into catalog events; it reports the
 * last one it processed with its lease, which writers wait for; and it knows whether its lease
 * holds, i.e. whether what it keeps in memory may be trusted. A skipped message, a message Redis
 * published that never arrived, or a new epoch: it emits `missed` and starts from where Redis is.
 */
export class Membership {
  private position: ClockPosition | undefined;
  /** performance.now() until which the in-process cache may be trusted. */
  private leaseUntil = 0;
  /** performance.now() until which no other protocol can be live unseen: Redis's entries may be read (rule 12). */
  private aloneUntil = 0;
  /** Other protocols live by the last renewal (rule 12). */
  private livingBeside = 0;
  private readonly renewTimer: NodeJS.Timeout;
  private renewing: Promise<void> | undefined;
  private renewAgain = false;
  /** Messages are processed one at a time, in arrival order. */
  private processing: Promise<void> = Promise.resolve();
  private stopped = false;
  private leaseGranted!: () => void;
  /** Resolves once this member first holds its lease (it has reached Redis and joined the clock). */
  readonly firstLease = new Promise<void>((resolve) => (this.leaseGranted = resolve));

  constructor(private readonly options: MembershipOptions) {
    const { subscriber, logger } = options;
    subscriber.on('ready', () => {
      subscriber.subscribe(options.channel).catch((error) => options.onRedisError('subscribe', error));
    });
    subscriber.on('message', (_channel, text) => {
      let message: InvalidationMessage;
      try {
        message = JSON.parse(text) as InvalidationMessage;
      } catch (error) {
        logger.warn({ err: error, message: text }, 'ignoring malformed invalidation message');
        return;
      }
      this.processing = this.processing.then(() => this.process(message));
    });
    this.renewTimer = setInterval(() => this.renew(), RENEW_EVERY_MS);
    this.renewTimer.unref();
    this.renew();
  }

  /** Whether this process's lease holds: its in-process cache and replica reads may be trusted now. */
  get leaseHeld(): boolean {
    return performance.now() < this.leaseUntil;
  }

  /** Whether no other protocol can be live unseen: what this protocol keeps in Redis may be read (rule 12). */
  get alone(): boolean {
    return performance.now() < this.aloneUntil;
  }

  /** How many other protocols were live by the last renewal. */
  get otherProtocols(): number {
    return this.livingBeside;
  }

  /** Where this member is in the invalidation history (undefined before it first reached Redis). */
  get processed(): ClockPosition | undefined {
    return this.position;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.renewTimer);
    // Writers need not wait a lease for a member that is gone; one that misses this is forgotten by the next write.
    this.options.clock.leave(this.options.member).catch((error) => this.options.onRedisError('leave', error));
  }

  /** Renews now (coalesced: a renewal in flight is followed by one more). */
  renew(): void {
    if (this.stopped) return;
    if (this.renewing) {
      this.renewAgain = true;
      return;
    }
    this.renewing = this.renewOnce().finally(() => {
      this.renewing = undefined;
      if (this.renewAgain) {
        this.renewAgain = false;
        this.renew();
      }
    });
  }

  /**
   * One renewal. The lease is granted only by a renewal that found Redis exactly where this member
   * had processed to when it sent it: that is what Redis records, so a writer whose confirm runs
   * later waits for this member, and one that forgets members which have not processed its
   * confirm can never forget a member holding a lease granted after that confirm. A reply ahead
   * of that is a message on its way (or lost: the subscriber's PING tells) and is followed by
   * another renewal; a reply behind what was processed since is old, never a gap.
   */
  private async renewOnce(): Promise<void> {
    const sentAt = performance.now();
    const sent = this.position;
    let clock: RenewalState;
    let answeredAt: number;
    try {
      clock = await this.options.clock.renew(this.options.member, sent, this.options.presence.nextBeat());
      answeredAt = performance.now();
    } catch (error) {
      this.options.onRedisError('renew', error);
      return;
    }
    await this.processing;
    if (!(await this.aloneAfter(this.options.presence.observe(sentAt, answeredAt, clock.presence)))) return;
    this.aloneUntil = sentAt + LEASE_MS - LEASE_MARGIN_MS;
    if (sent?.epoch === clock.epoch && sent.seq === clock.seq && this.position?.epoch === clock.epoch) {
      this.leaseUntil = sentAt + LEASE_MS - LEASE_MARGIN_MS;
      this.leaseGranted();
      return;
    }
    // Moved to another epoch since sending: the reply may predate it, and says nothing now.
    const movedSinceSent = sent !== undefined && this.position?.epoch !== sent.epoch;
    const heard = movedSinceSent ? 'unknown' : await this.heardThrough(clock);
    if (heard === 'missed') {
      const newEpoch = this.position?.epoch !== clock.epoch;
      if (!newEpoch)
        this.options.logger.warn(
          { processed: this.position?.seq, redis: clock.seq },
          'invalidations were not heard: dropping what is kept',
        );
      await this.restartAt(clock, newEpoch ? clock.cause : 'gap');
    }
    // Registered where it is now by the next renewal, which may then grant the lease.
    if (heard !== 'unknown') this.renewAgain = true;
  }

  /**
   * Rule 12: whether this protocol is alone in Redis now. Beside a live other protocol nothing
   * kept may be served (their writes are not announced here): the lease and Redis's entries are
   * dropped. Once every other one is gone the time beside them is ended in the clock, with a new
   * epoch that voids what was kept before or during it; the next renewal finds that epoch (and
   * restarts there) before any lease is granted.
   */
  private async aloneAfter({ live, gone }: OtherProtocols): Promise<boolean> {
    this.livingBeside = live;
    if (live === 0 && gone.length === 0) return true;
    this.leaseUntil = 0;
    this.aloneUntil = 0;
    if (live > 0) return false;
    try {
      const { ended } = await this.options.clock.endBeside(gone);
      if (ended) {
        this.options.presence.forget(gone);
        this.options.logger.info(
          { gone: gone.map(([protocol]) => protocol) },
          'no other coherence protocol beside this one: caching again',
        );
      }
    } catch (error) {
      this.options.onRedisError('end beside', error);
    }
    this.renewAgain = true;
    return false;
  }

  /**
   * Whether every message published before Redis answered at `clock` has been processed here.
   * Redis sends a connection's replies in order: once the subscriber's PING is back, every
   * message published before it (so before that answer) has arrived, and is processed once the
   * queue drains. `unknown` when the subscriber cannot be asked.
   */
  private async heardThrough(clock: ClockPosition): Promise<'heard' | 'missed' | 'unknown'> {
    if (this.position === undefined) return 'missed';
    try {
      await this.options.subscriber.ping();
    } catch (error) {
      this.options.onRedisError('ping', error);
      return 'unknown';
    }
    await this.processing;
    const position = this.position;
    return position?.epoch === clock.epoch && position.seq >= clock.seq ? 'heard' : 'missed';
  }

  private async process(message: InvalidationMessage): Promise<void> {
    const known = this.position;
    if (message.kind === 'epoch') {
      if (!known || message.epoch !== known.epoch) await this.restartAt(message, message.cause);
      return;
    }
    if (!known || message.epoch !== known.epoch) {
      // Its epoch message is on its way or lost: the cause is not known here.
      await this.restartAt({ epoch: message.epoch, seq: message.seq - 1 }, 'lost');
    } else if (message.seq <= known.seq) {
      return;
    } else if (message.seq > known.seq + 1) {
      this.options.logger.warn({ heard: message.seq, expected: known.seq + 1 }, 'missed an invalidation: dropping what is kept');
      await this.restartAt({ epoch: message.epoch, seq: message.seq - 1 }, 'gap');
    }
    await this.emitFor(message);
    this.options.heard.heard(message, message.tags);
    this.position = { epoch: message.epoch, seq: message.seq };
    // The acknowledgement a writer waits for.
    if (message.kind === 'confirm') this.renew();
  }

  private async emitFor(message: Exclude<InvalidationMessage, { kind: 'epoch' }>): Promise<void> {
    const change = changeOfTags(message.tags);
    if (message.kind === 'prepare') await this.options.events.emit('changing', { ...change, pendingMs: message.pendingMs });
    else await this.options.events.emit('changed', { ...change, lsn: positionOfConfirm(message.lsn) });
  }

  /** Drops everything kept (it may predate what was missed) and continues from `position`; the lease waits for the next renewal. */
  private async restartAt(position: ClockPosition, reason: ResetReason): Promise<void> {
    this.leaseUntil = 0;
    if (this.position) this.options.onReset(reason);
    this.position = { epoch: position.epoch, seq: position.seq };
    this.options.heard.restartAt(this.position);
    await this.options.events.emit('missed', {});
  }
}

/**
 * A confirm's position, or undefined when it names none: its writer could not read one, or it
 * is a bare LSN without the timeline above it (from a gateway of before timelines, in a rolling
 * upgrade), which every replica's position would pass. Either raises the floor instead (rule 8).
 */
function positionOfConfirm(text: string): Lsn | undefined {
  if (text === '') return undefined;
  const position = BigInt(text);
  return timelineOfPosition(position) === 0 ? undefined : position;
}

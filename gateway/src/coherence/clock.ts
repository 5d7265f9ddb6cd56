import { randomBytes } from 'node:crypto';
import type { SharedRedis } from '../redis/shared-redis.js';
import { REDIS_CLOCK_KEY, REDIS_PROTOCOLS_KEY, redisTagCountKey, redisTagVersionKey } from '../redis/keys.js';

/** Thrown when the Redis server behind the connection is not known yet (just (re)connecting). */
export class RedisServerUnknown extends Error {
  constructor() {
    super('redis server not identified yet');
  }
}

/** A position in the invalidation history: the clock's epoch and a seq within it. */
export interface ClockPosition {
  epoch: string;
  seq: number;
}

export type AnnouncePhase = 'prepare' | 'confirm';

/**
 * What started an epoch: the clock was lost (restart empty, flush, eviction), another server took
 * over (failover), a catalog swap, or the end of a time beside other protocols (rule 12).
 */
export type EpochCause = 'lost' | 'failover' | 'swap' | 'protocols';

/** Where the clock is, and what started its epoch. */
export interface ClockState extends ClockPosition {
  cause: EpochCause;
}

/** A renewal's answer: where the clock is, and every protocol's latest beat (rule 12). */
export interface RenewalState extends ClockState {
  /** Protocol name → the token of its latest beat. */
  presence: Map<string, string>;
}

/** This member's protocol and a token it never beat with before. */
export interface Beat {
  protocol: string;
  token: string;
}

/**
 * This process's epochs: a random prefix of fixed length drawn once, then a counter (every lookup
 * asks for one; most go unused). Hex digits only: the scripts parse tag versions as `<epoch>:<seq>`.
 */
const EPOCH_PREFIX = randomBytes(8).toString('hex');
let epochsDrawn = 0;
const freshEpoch = (): string => EPOCH_PREFIX + (epochsDrawn++).toString(16);

/**
 * The coherence clock in Redis (gateway/README.md, "Consistency"), through its scripts. Every
 * call names the server the connection talks to and brings a fresh epoch, used only if the clock
 * must be made anew. Calls go straight to Redis, not through the request path's circuit
 * breaker: they are how a member learns that Redis is back, and writes need them.
 */
export class RedisClock {
  /**
   * When this process first saw each recent epoch in a script's answer, by its monotonic clock:
   * no later than the epoch began, so an epoch seen a lease ago began at least a lease ago.
   */
  private readonly firstSeen = new Map<string, number>();

  constructor(private readonly redis: SharedRedis) {}

  /** How long ago (ms, by this process's monotonic clock) `epoch` began, at least; 0 if never seen. */
  ageOf(epoch: string): number {
    const seen = this.firstSeen.get(epoch);
    return seen === undefined ? 0 : performance.now() - seen;
  }

  private saw(epoch: string): string {
    if (!this.firstSeen.has(epoch)) {
      this.firstSeen.set(epoch, performance.now());
      // Only the newest few matter: a write asks about the epoch its confirm ran in.
      if (this.firstSeen.size > 8) this.firstSeen.delete(this.firstSeen.keys().next().value!);
    }
    return epoch;
  }

  /** ARGV[1..3] of every coherence script. */
  prologue(): [runId: string, freshEpoch: string, channel: string] {
    const runId = this.redis.server.runId;
    if (runId === undefined) throw new RedisServerUnknown();
    return [runId, freshEpoch(), this.redis.invalidationChannel];
  }

  async announce(
    phase: AnnouncePhase,
    tags: readonly string[],
    { pendingMs, versionTtlMs, lsn }: { pendingMs: number; versionTtlMs: number; lsn: string },
  ): Promise<ClockPosition> {
    const keys = [REDIS_CLOCK_KEY, ...tags.map(redisTagVersionKey), ...tags.map(redisTagCountKey)];
    const [epoch, seq] = await this.redis.client.coherenceAnnounce(
      keys.length,
      ...keys,
      ...this.prologue(),
      phase,
      pendingMs,
      versionTtlMs,
      lsn,
      ...tags,
    );
    return { epoch: this.saw(epoch), seq: Number(seq) };
  }

  /** Records this member's last processed seq (in the epoch it knows) and its protocol's beat; returns where the clock is. */
  async renew(member: string, known: ClockPosition | undefined, beat: Beat): Promise<RenewalState> {
    const [epoch, seq, cause, presence] = await this.redis.client.coherenceRenew(
      2,
      REDIS_CLOCK_KEY,
      REDIS_PROTOCOLS_KEY,
      ...this.prologue(),
      member,
      known?.epoch ?? '',
      known?.seq ?? 0,
      beat.protocol,
      beat.token,
    );
    const beats = new Map<string, string>();
    for (let index = 0; index + 1 < presence.length; index += 2) beats.set(presence[index]!, presence[index + 1]!);
    return { epoch: this.saw(epoch), seq: Number(seq), cause: cause as EpochCause, presence: beats };
  }

  /**
   * Ends a time beside the protocols `gone` (each with the token it last beat with): false when
   * one beat again since. True once the clock is in an epoch begun after them (this call's, or
   * another member's ending the same time): the epoch is returned.
   */
  async endBeside(gone: ReadonlyArray<readonly [protocol: string, token: string]>): Promise<{ ended: boolean; epoch: string }> {
    const [epoch, ended] = await this.redis.client.coherenceEndBeside(
      2,
      REDIS_CLOCK_KEY,
      REDIS_PROTOCOLS_KEY,
      ...this.prologue(),
      ...gone.flat(),
    );
    return { ended: Number(ended) === 1, epoch: this.saw(epoch) };
  }

  /**
   * Members that have not processed `confirm` (forgotten, with `forget`), and whether the clock
   * was replaced since (then members of the older one may hold leases nobody here can see).
   */
  async unacknowledged(confirm: ClockPosition, forget: boolean): Promise<{ waiting: number; replaced: boolean }> {
    const [waiting, replaced] = await this.redis.client.coherenceUnacknowledged(
      1,
      REDIS_CLOCK_KEY,
      ...this.prologue(),
      confirm.epoch,
      confirm.seq,
      forget ? '1' : '0',
    );
    return { waiting: Number(waiting), replaced: Number(replaced) === 1 };
  }

  /** Takes `member` out of the clock: a process that stops is not waited for. */
  async leave(member: string): Promise<void> {
    await this.redis.client.hdel(REDIS_CLOCK_KEY, `m:${member}`);
  }

  /**
   * Starts a new epoch for a catalog swap, once per swap id; returns the epoch now current, and
   * whether this very call started it (the script returns the fresh epoch it was given only when
   * it made the clock with it).
   */
  async swap(swapId: string): Promise<{ epoch: string; started: boolean }> {
    const prologue = this.prologue();
    const epoch = this.saw(await this.redis.client.coherenceSwap(1, REDIS_CLOCK_KEY, ...prologue, swapId));
    return { epoch, started: epoch === prologue[1] };
  }
}

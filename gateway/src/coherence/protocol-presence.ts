import type { Beat } from './clock.js';
import { LEASE_MS } from './lease.js';

/**
 * A protocol none of whose members beat for this long (by a renewal sent this long after the
 * token was first seen here) is gone. Members beat with every renewal, four times a lease.
 */
export const PRESENCE_MS = 3_000;
/** Taken off PRESENCE_MS by the side that beats: one process's clock may run a little fast against another's. */
export const PRESENCE_MARGIN_MS = 250;

/** What a renewal showed of the other protocols. */
export interface OtherProtocols {
  /** How many beat within PRESENCE_MS (or were first seen since). */
  live: number;
  /** Those that did not, each with the token it last beat with. */
  gone: Array<[protocol: string, token: string]>;
}

/**
 * This member's protocol among the others sharing its Redis (gateway/README.md, "Consistency",
 * rule 12): its own beats, and what it saw of the others'. Times are this process's monotonic
 * clock (performance.now()).
 *
 * - Another protocol is live from the answer that first shows a token of it until a renewal sent
 *   PRESENCE_MS after that answer still shows the same token (or none: a lost hash says nothing):
 *   then no member of it beat for PRESENCE_MS.
 * - This member's beats form a run while each is answered within PRESENCE_MS − margin of the
 *   previous one's sending: throughout a run every other protocol's member that renews sees this
 *   protocol live, and counts it gone no sooner than PRESENCE_MS after the run's last beat.
 */
export class ProtocolPresence {
  private beats = 0;
  private run: { firstAnsweredAt: number; lastSentAt: number } | undefined;
  private readonly others = new Map<string, { token: string; seenAt: number }>();

  constructor(
    readonly protocol: string,
    private readonly member: string,
  ) {}

  /** The next beat: a token this member never sent before. */
  nextBeat(): Beat {
    return { protocol: this.protocol, token: `${this.member}:${(this.beats++).toString(36)}` };
  }

  /** A beat sent at `sentAt` was answered at `answeredAt` with every protocol's latest token. */
  observe(sentAt: number, answeredAt: number, presence: ReadonlyMap<string, string>): OtherProtocols {
    if (this.run && answeredAt - this.run.lastSentAt < PRESENCE_MS - PRESENCE_MARGIN_MS) {
      this.run.lastSentAt = Math.max(this.run.lastSentAt, sentAt);
    } else {
      this.run = { firstAnsweredAt: answeredAt, lastSentAt: sentAt };
    }
    for (const [protocol, token] of presence) {
      if (protocol !== this.protocol && this.others.get(protocol)?.token !== token)
        this.others.set(protocol, { token, seenAt: answeredAt });
    }
    const gone: OtherProtocols['gone'] = [];
    for (const [protocol, { token, seenAt }] of this.others) if (sentAt - seenAt >= PRESENCE_MS) gone.push([protocol, token]);
    return { live: this.others.size - gone.length, gone };
  }

  /** Forgets protocols counted gone, once the time beside them has ended (RedisClock.endBeside). */
  forget(gone: OtherProtocols['gone']): void {
    for (const [protocol, token] of gone) if (this.others.get(protocol)?.token === token) this.others.delete(protocol);
  }

  /**
   * How long until a write that committed by `committedAt` may be acknowledged: 0 for now;
   * undefined while no beat of the current run was sent late enough (the next one may be). It may
   * be once this member's current run holds a beat sent no more than PRESENCE_MS − margin before
   * the commit (so no other protocol's member counts this one gone before the commit) and began a
   * lease ago (so every lease granted before the others first saw it has ended).
   */
  acknowledgeableIn(committedAt: number, now = performance.now()): number | undefined {
    if (!this.run || this.run.lastSentAt < committedAt - (PRESENCE_MS - PRESENCE_MARGIN_MS)) return undefined;
    return Math.max(0, this.run.firstAnsweredAt + LEASE_MS - now);
  }
}

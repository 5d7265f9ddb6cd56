import type { ClockPosition } from './clock.js';
import { NewestPerTag } from './newest-per-tag.js';

/** What this process can say of a Redis entry from what it heard; `unknown` leaves it to the check in Redis. */
export type HeardVerdict = 'valid' | 'stale' | 'unknown';

/**
 * The tags' versions as this process heard them (gateway/README.md, "Consistency", rule 1): in
 * its current epoch, the seq of the last announcement (prepare or confirm) of each tag, its own
 * and other replicas', and a floor below which it knows nothing (where it started, or restarted
 * after missing messages, or where forgotten tags were folded in). While the lease holds, every
 * write acknowledged before now was heard (rule 5), so an entry whose tags were not announced
 * after its `readSeq` is exactly as valid as the check in Redis would find it.
 */
export class HeardVersions {
  private epoch: string | undefined;
  /** The epoch a catalog swap ended here before Redis replaced it: never judged again. */
  private sweptEpoch: string | undefined;
  /** Each announced tag's newest seq; older entries than the floor go to Redis's check. */
  private readonly seqs = new NewestPerTag<number>(0);

  /** Continues from `position`: what came before it is not known here. */
  restartAt(position: ClockPosition): void {
    this.epoch = position.epoch === this.sweptEpoch ? undefined : position.epoch;
    this.seqs.reset(position.seq);
  }

  /** A catalog swap was heard: the current epoch's entries hold the old catalog (rule 9), until Redis starts a new one. */
  swapped(): void {
    if (this.epoch !== undefined) this.sweptEpoch = this.epoch;
    this.epoch = undefined;
    this.seqs.reset(this.seqs.floor);
  }

  /** An announcement of `tags` at `position` (heard on the channel, or made by this process). */
  heard(position: ClockPosition, tags: Iterable<string>): void {
    if (position.epoch !== this.epoch) return;
    for (const tag of tags) this.seqs.note(tag, position.seq);
  }

  /** An entry read at `readAt` with `tags`, judged by what was heard (the caller checks the lease). */
  judge(readAt: ClockPosition, tags: readonly string[]): HeardVerdict {
    if (readAt.epoch !== this.epoch || readAt.seq < this.seqs.floor) return 'unknown';
    for (const tag of tags) {
      const seq = this.seqs.get(tag);
      if (seq !== undefined && seq > readAt.seq) return 'stale';
    }
    return 'valid';
  }
}

import type { ReadTarget, ReadTargets, ReplicaReadFallback } from '../db/read-targets.js';
import type { ReadRequirements } from './read-requirements.js';

/** A computed response and the tags of everything it was built from. */
export interface TaggedResult {
  tags: Iterable<string>;
}

/**
 * Where a read runs (gateway/README.md, "Consistency", rule 8): on a streaming replica in
 * rotation while this process holds its lease, else on the primary. The replica's replay position
 * is taken before the first statement; once the response's tags are known, it is used only if
 * the replica had replayed every write to them that this process heard of, the floor, and none
 * of them is pending — otherwise it is read again on the primary. A read that failed on a
 * replica (a product a lagging replica cannot see yet is a 404) is read again on the primary too.
 */
export class ReplicaReads {
  constructor(
    private readonly targets: ReadTargets,
    private readonly requirements: ReadRequirements,
    private readonly leaseHeld: () => boolean,
    /** Counts a read meant for a replica that went to the primary, by reason. */
    private readonly onFallback: (reason: ReplicaReadFallback) => void,
  ) {}

  async run<Result extends TaggedResult>(compute: (target: ReadTarget) => Promise<Result>): Promise<Result> {
    const { primary } = this.targets;
    if (this.targets.replicas.length === 0) return compute(primary);
    if (!this.leaseHeld()) {
      this.onFallback('no_lease');
      return compute(primary);
    }
    const replica = this.targets.pickReplica();
    if (replica === primary) return compute(primary);
    const replayed = replica.replayedLsn();
    const serverChanges = replica.serverChanges();
    let result: Result | undefined;
    try {
      result = await compute(replica);
    } catch {
      // Read again below; a failure the primary shares is the primary's to report.
    }
    // Its statements ran on the server `replayed` was read from only if the polls stayed there.
    if (result && replica.serverChanges() !== serverChanges) {
      this.onFallback('server_changed');
      return compute(primary);
    }
    if (result && this.requirements.replicaMayAnswer(result.tags, replayed)) return result;
    this.onFallback('behind_writes');
    return compute(primary);
  }
}

import type { CatalogEvents } from '../events/catalog-events.js';
import { tagsOfChange } from '../events/change-tags.js';
import { NewestPerTag } from './newest-per-tag.js';

/**
 * What a response must not have been read before, as this process knows it (gateway/README.md,
 * "Consistency", rules 4, 7, 8, 9): the tags of writes in flight (pending: announced, not
 * committed yet), the primary's WAL position each committed write needs a streaming replica to
 * have replayed, and a floor every replica read must reach (raised when changes may have been
 * missed, a new catalog was swapped in, or a write's position could not be read). Fed by the catalog events; asked by the response cache.
 */
export class ReadRequirements {
  private readonly pendingUntil = new Map<string, number>();
  /** Each written tag's newest write position, and the floor every replica read must reach. */
  private readonly neededLsn = new NewestPerTag<bigint>(0n);
  /** Floor raises still waiting for the primary's position: no replica may answer meanwhile. */
  private floorRaisesInFlight = 0;

  /**
   * @param primaryLsn the primary's current WAL position; undefined when there are no replicas
   *   to route to (then positions are neither needed nor asked for)
   */
  constructor(
    events: CatalogEvents,
    private readonly primaryLsn: (() => Promise<bigint>) | undefined,
    private readonly onFloorError: (error: unknown) => void,
  ) {
    events.on('changing', (change) => {
      const until = performance.now() + change.pendingMs;
      for (const tag of tagsOfChange(change)) this.pendingUntil.set(tag, until);
    });
    events.on('changed', (change) => {
      for (const tag of tagsOfChange(change)) {
        this.pendingUntil.delete(tag);
        if (change.lsn !== undefined) this.neededLsn.note(tag, change.lsn);
      }
      // Its writer could not read where it committed: replicas must reach the primary's position now.
      if (change.lsn === undefined) this.raiseFloor();
    });
    events.on('missed', () => this.raiseFloor());
    events.on('swapped', () => this.raiseFloor());
  }

  /** Whether a write announced here may be committing now to one of `tags`. */
  anyPending(tags: Iterable<string>): boolean {
    if (this.pendingUntil.size === 0) return false;
    const now = performance.now();
    for (const tag of tags) {
      const until = this.pendingUntil.get(tag);
      if (until === undefined) continue;
      if (until > now) return true;
      this.pendingUntil.delete(tag);
    }
    return false;
  }

  /** Whether a response with `tags`, read from a replica that had replayed up to `replayed`, may be used. */
  replicaMayAnswer(tags: Iterable<string>, replayed: bigint): boolean {
    if (this.floorRaisesInFlight > 0 || replayed < this.neededLsn.floor) return false;
    const list = [...tags];
    if (this.anyPending(list)) return false;
    return list.every((tag) => (this.neededLsn.get(tag) ?? 0n) <= replayed);
  }

  /** Until the primary says where it is now, no replica answers; then none behind that does. */
  private raiseFloor(): void {
    if (!this.primaryLsn) return;
    this.floorRaisesInFlight += 1;
    void this.primaryLsn()
      .then((lsn) => {
        this.neededLsn.raiseFloor(lsn);
        this.floorRaisesInFlight -= 1;
      })
      .catch((error: unknown) => {
        // The primary is unreachable: keep replicas out until a later raise succeeds.
        this.onFloorError(error);
        setTimeout(() => {
          this.floorRaisesInFlight -= 1;
          this.raiseFloor();
        }, 1_000).unref();
      });
  }
}

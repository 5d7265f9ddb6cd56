/** Something changed in the catalog: written here, or heard from another replica through Redis. */
export interface CatalogChange {
  /** Products whose data changed (created, updated or deleted). */
  productIds: readonly number[];
  /** Ids were added or removed: every position after them in the id-ordered list moved. */
  listChanged: boolean;
  /** Heard from Redis (made by some replica, this one included) rather than made by this process. */
  remote: boolean;
}

export interface CatalogEventMap {
  /** Products were written (their cached answers are stale; list positions moved if `listChanged`). */
  changed: CatalogChange;
  /** A loader run swapped a whole new catalog in; `swapId` undefined when the swap is unknown (a lost listener). */
  swapped: { swapId: string | undefined };
  /** Changes may have been missed (a lost subscription, a gap in the invalidation generations): trust nothing kept. */
  missed: Record<string, never>;
}

type Listener<Event> = (event: Event) => void | Promise<void>;
type Listeners = { [Name in keyof CatalogEventMap]: Listener<CatalogEventMap[Name]>[] };

/**
 * What happens to the catalog, as events: fed by writes, the Postgres LISTEN for catalog swaps
 * and Redis pub/sub; the response cache and the pager subscribe, neither knowing the other.
 * `emit` resolves once every subscriber is done, so a write answers only after its effects
 * (e.g. the invalidation delivered to Redis) have happened.
 */
export class CatalogEvents {
  private readonly listeners: Listeners = { changed: [], swapped: [], missed: [] };

  on<Name extends keyof CatalogEventMap>(name: Name, listener: Listener<CatalogEventMap[Name]>): void {
    this.listeners[name].push(listener);
  }

  async emit<Name extends keyof CatalogEventMap>(name: Name, event: CatalogEventMap[Name]): Promise<void> {
    await Promise.all(this.listeners[name].map((listener) => listener(event)));
  }
}

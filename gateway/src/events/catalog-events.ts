/** Products a write touches: by id, and whether positions in product lists may move. */
export interface CatalogChange {
  /** Products whose data changes (created, updated or deleted). */
  productIds: readonly number[];
  /** Ids are added or removed, or a field lists filter or sort by changes: list positions move. */
  listChanged: boolean;
}

export interface CatalogEventMap {
  /**
   * A write is about to commit (its announcement's first phase, here or on any replica): what
   * it touches must not be kept or trusted until it is `changed`, or for `pendingMs` at most.
   */
  changing: CatalogChange & { pendingMs: number };
  /**
   * A write committed (its announcement's second phase): its products' cached answers are stale,
   * and a streaming replica must have replayed the primary's WAL up to `lsn` (when known) to serve them.
   */
  changed: CatalogChange & { lsn: bigint | undefined };
  /**
   * A loader run swapped a whole new catalog in, or a change captured in the database was too
   * large to name (capture/); `swapId` undefined when the swap is unknown (a lost listener).
   */
  swapped: { swapId: string | undefined };
  /** Changes may have been missed (a lost message, a new coherence epoch): trust nothing kept. */
  missed: Record<string, never>;
}

type Listener<Event> = (event: Event) => void | Promise<void>;
type Listeners = { [Name in keyof CatalogEventMap]: Listener<CatalogEventMap[Name]>[] };

/**
 * What happens to the catalog, as events: fed by writes, the Postgres LISTEN for catalog swaps
 * and the coherence protocol's messages from other replicas; the response cache, the pager and
 * the read requirements subscribe, none knowing the others. `emit` resolves once every
 * subscriber is done, so what follows an event (an acknowledgement, a write's answer) happens
 * after its effects.
 */
export class CatalogEvents {
  private readonly listeners: Listeners = { changing: [], changed: [], swapped: [], missed: [] };

  on<Name extends keyof CatalogEventMap>(name: Name, listener: Listener<CatalogEventMap[Name]>): void {
    this.listeners[name].push(listener);
  }

  async emit<Name extends keyof CatalogEventMap>(name: Name, event: CatalogEventMap[Name]): Promise<void> {
    await Promise.all(this.listeners[name].map((listener) => listener(event)));
  }
}

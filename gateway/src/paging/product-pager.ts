import type { CatalogEvents } from '../events/catalog-events.js';
import { BEFORE_FIRST_ID, type ProductRepository, type ProductRow } from '../repository/products.js';

/** Rows between two anchors: the most any page has to skip through the primary-key index. */
export const ANCHOR_SPACING = 1_000;
/** Bounds how stale anchors get after edits made in the database directly (writes and reloads reset them at once). */
const ANCHOR_MAX_AGE_MS = 60_000;

/**
 * `page`/`count` paging with OFFSET semantics over id order, served by keyset queries: the id at
 * every ANCHOR_SPACING-th position is kept in memory, so page 200,000 starts from the nearest
 * anchor and skips fewer than ANCHOR_SPACING index entries, just like page 1. The anchors are
 * dropped whenever the catalog events say positions may have moved: ids added or removed (here
 * or on another replica), a new catalog swapped in, or changes possibly missed.
 */
export class ProductPager {
  private anchors: Promise<number[]> | undefined;
  private anchorsExpireAt = 0;

  constructor(
    private readonly products: ProductRepository,
    events: CatalogEvents,
  ) {
    events.on('changed', ({ listChanged }) => {
      if (listChanged) this.reset();
    });
    events.on('swapped', () => this.reset());
    events.on('missed', () => this.reset());
  }

  /**
   * One page, its rows read through `rows` (the request's read target, a replica when one may
   * serve it); the anchors come from the primary. Anchors only say where to start in id order, so
   * a replica's page is still its own rows in order; whether it may be served is decided like any
   * replica read (rule 8 of the consistency argument).
   */
  async page(page: number, count: number, rows: ProductRepository): Promise<ProductRow[]> {
    const offset = (page - 1) * count;
    if (offset < ANCHOR_SPACING) return rows.listAfter(BEFORE_FIRST_ID, offset, count);
    const anchors = await this.currentAnchors();
    const block = Math.floor(offset / ANCHOR_SPACING);
    const anchor = anchors[block - 1];
    if (anchor === undefined) return []; // past the end of the catalog
    return rows.listAfter(anchor, offset - block * ANCHOR_SPACING, count);
  }

  /** Ids were added or removed: positions moved, so the anchors must be rebuilt. */
  private reset(): void {
    this.anchors = undefined;
  }

  /** One shared build at a time; a failed build (database down) is not remembered. */
  private currentAnchors(): Promise<number[]> {
    if (!this.anchors || Date.now() >= this.anchorsExpireAt) {
      const building = this.products.idsAtEvery(ANCHOR_SPACING);
      this.anchors = building;
      this.anchorsExpireAt = Number.POSITIVE_INFINITY;
      building.then(
        () => {
          if (this.anchors === building) this.anchorsExpireAt = Date.now() + ANCHOR_MAX_AGE_MS;
        },
        () => {
          if (this.anchors === building) this.anchors = undefined;
        },
      );
    }
    return this.anchors;
  }
}

import { PRODUCT_LIST_TAG, productTag } from '../events/change-tags.js';

/**
 * The tags of one response under construction: every product id the response was built from
 * (looked up, found or not). A write to a product evicts exactly the responses tagged with it.
 * Ids are kept as numbers and spelt as tags only for a catalog read (its cache entry, and its
 * surrogate keys for shared caches): for an error or a mutation's answer no tag string is made.
 */
export class ResponseTags implements Iterable<string> {
  private readonly productIds = new Set<number>();
  private productList = false;

  addProducts(ids: Iterable<number>): void {
    for (const id of ids) this.productIds.add(id);
  }

  addProductList(): void {
    this.productList = true;
  }

  /** The tags spelt out, in one array (a generator would cost a resumption per tag). */
  [Symbol.iterator](): Iterator<string> {
    const tags = this.productList ? [PRODUCT_LIST_TAG] : [];
    for (const id of this.productIds) tags.push(productTag(id));
    return tags.values();
  }
}

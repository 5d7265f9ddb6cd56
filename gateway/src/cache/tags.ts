import { PRODUCT_LIST_TAG, productTag } from '../events/change-tags.js';

/**
 * The tags of one response under construction: every product id the response was built from
 * (looked up, found or not). A write to a product evicts exactly the responses tagged with it.
 * Ids are kept as numbers and spelt as tags only when the response is stored: with the cache
 * off, or for a response it will not keep, no tag string is ever made.
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

  *[Symbol.iterator](): Iterator<string> {
    if (this.productList) yield PRODUCT_LIST_TAG;
    for (const id of this.productIds) yield productTag(id);
  }
}

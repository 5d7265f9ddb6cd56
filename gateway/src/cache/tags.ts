import { PRODUCT_LIST_TAG, productTag } from '../events/change-tags.js';

/**
 * The tags of one response under construction: every product id the response was built from
 * (looked up, found or not). A write to a product evicts exactly the responses tagged with it.
 */
export class ResponseTags {
  readonly values = new Set<string>();

  addProducts(ids: Iterable<number>): void {
    for (const id of ids) this.values.add(productTag(id));
  }

  addProductList(): void {
    this.values.add(PRODUCT_LIST_TAG);
  }
}

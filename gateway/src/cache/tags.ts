/** Tag carried by every cached response that depends on paging over the product list. */
export const PRODUCT_LIST_TAG = 'products:list';

export const productTag = (id: number): string => `product:${id}`;

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

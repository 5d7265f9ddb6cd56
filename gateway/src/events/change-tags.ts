import type { CatalogChange } from './catalog-events.js';

/**
 * Changes travel between replicas as tags (the Redis invalidation message carries the tags it
 * evicted), and the response cache tags each response with the same words: `product:<id>` for
 * every product it was built from, `products:list` for anything that depends on list positions.
 */
export const PRODUCT_LIST_TAG = 'products:list';

const PRODUCT_TAG_PREFIX = 'product:';

export const productTag = (id: number): string => `${PRODUCT_TAG_PREFIX}${id}`;

/** The tags a change evicts. */
export function tagsOfChange(change: Pick<CatalogChange, 'productIds' | 'listChanged'>): string[] {
  const tags = change.productIds.map(productTag);
  if (change.listChanged) tags.push(PRODUCT_LIST_TAG);
  return tags;
}

/** The change a set of tags announces (tags of no known form are ignored). */
export function changeOfTags(tags: readonly string[]): Pick<CatalogChange, 'productIds' | 'listChanged'> {
  const productIds: number[] = [];
  for (const tag of tags) {
    if (!tag.startsWith(PRODUCT_TAG_PREFIX)) continue;
    const id = Number(tag.slice(PRODUCT_TAG_PREFIX.length));
    if (Number.isSafeInteger(id)) productIds.push(id);
  }
  return { productIds, listChanged: tags.includes(PRODUCT_LIST_TAG) };
}

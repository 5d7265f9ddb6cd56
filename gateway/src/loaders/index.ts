import DataLoader from 'dataloader';
import type { ResponseTags } from '../cache/tags.js';
import type { SharedBatchers } from './shared-batchers.js';

/**
 * Per-request DataLoaders over products and their relations: within a request each id is read
 * once, and every read tags the response with the product ids it used (asked for, or found in a
 * related list: deleting a related product changes that list). The reads themselves go through
 * the app-wide batchers, so concurrent requests share statements.
 */
export function createLoaders(batchers: SharedBatchers, tags: ResponseTags) {
  const perRequest = <Row>(shared: DataLoader<number, Row | null>, relatedIdsOf?: (row: Row) => number[]) =>
    new DataLoader<number, Row | null>(async (ids) => {
      tags.addProducts(ids);
      const rows = await shared.loadMany(ids);
      if (relatedIdsOf) {
        for (const row of rows) if (row && !(row instanceof Error)) tags.addProducts(relatedIdsOf(row));
      }
      return rows;
    });

  return {
    product: perRequest(batchers.product),
    productWithFeatures: perRequest(batchers.productWithFeatures),
    styleTrees: perRequest(batchers.styleTrees),
    relatedIds: perRequest(batchers.relatedIds, (row) => row.related_ids),
    document: perRequest(batchers.document, (row) => row.related_ids),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

import DataLoader from 'dataloader';
import type { ResponseTags } from '../cache/tags.js';
import type { Repositories } from '../repository/index.js';
import type { ProductRow } from '../repository/products.js';

export type LoaderName = 'product' | 'productWithFeatures' | 'styleTrees' | 'relatedIds' | 'document';
export type BatchObserver = (loader: LoaderName, size: number) => void;

/**
 * Per-request DataLoaders over products and their relations: each batch of product ids costs
 * one statement, and tags the response with every product id it read (asked for, or found in a
 * related list: deleting a related product changes that list).
 */
export function createLoaders(repositories: Repositories, tags: ResponseTags, observeBatch: BatchObserver) {
  const byProductId = <Row extends { id: number }>(name: LoaderName, fetch: (ids: readonly number[]) => Promise<Row[]>) =>
    new DataLoader<number, Row | null>(async (ids) => {
      observeBatch(name, ids.length);
      tags.addProducts(ids);
      const rows = await fetch(ids);
      const found = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => found.get(id) ?? null);
    });
  const { products, documents } = repositories;
  const withRelatedTags = <Row extends { related_ids: number[] }>(rows: Row[]) => {
    for (const row of rows) tags.addProducts(row.related_ids);
    return rows;
  };

  return {
    product: byProductId<ProductRow>('product', (ids) => products.findByIds(ids)),
    productWithFeatures: byProductId('productWithFeatures', (ids) => documents.findWithFeatures(ids)),
    styleTrees: byProductId('styleTrees', (ids) => documents.findStyleTrees(ids)),
    relatedIds: byProductId('relatedIds', async (ids) => withRelatedTags(await documents.findRelatedIds(ids))),
    document: byProductId('document', async (ids) => withRelatedTags(await documents.findDocuments(ids))),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

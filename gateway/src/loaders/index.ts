import DataLoader from 'dataloader';
import type { ResponseTags } from '../cache/tags.js';
import type { Repositories } from '../repository/index.js';
import type { FeatureRow } from '../repository/features.js';
import type { PhotoRow } from '../repository/photos.js';
import type { ProductRow } from '../repository/products.js';
import type { SkuRow } from '../repository/skus.js';
import type { StyleRow } from '../repository/styles.js';

export type LoaderName = 'product' | 'features' | 'styles' | 'photos' | 'skus' | 'relatedIds';
export type BatchObserver = (loader: LoaderName, size: number) => void;

/** Puts rows into one list per key, in the order the keys were asked for. */
function groupByKey<Row, Value>(keys: readonly number[], rows: Row[], keyOf: (row: Row) => number, valueOf: (row: Row) => Value): Value[][] {
  const groups = new Map<number, Value[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(valueOf(row));
  return keys.map((key) => groups.get(key)!);
}

/**
 * Per-request DataLoaders: every relation is fetched with one statement per batch, whatever the
 * number of parents, and each batch tags the response with the product ids it touched.
 */
export function createLoaders(repositories: Repositories, tags: ResponseTags, observeBatch: BatchObserver) {
  const batched = <Value>(name: LoaderName, load: (keys: readonly number[]) => Promise<Value[]>) =>
    new DataLoader<number, Value>((keys) => {
      observeBatch(name, keys.length);
      return load(keys);
    });

  return {
    product: batched<ProductRow | null>('product', async (ids) => {
      tags.addProducts(ids);
      const rows = await repositories.products.findByIds(ids);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    features: batched<FeatureRow[]>('features', async (productIds) =>
      groupByKey(productIds, await repositories.features.findByProductIds(productIds), (row) => row.product_id, (row) => row),
    ),
    styles: batched<StyleRow[]>('styles', async (productIds) =>
      groupByKey(productIds, await repositories.styles.findByProductIds(productIds), (row) => row.product_id, (row) => row),
    ),
    photos: batched<PhotoRow[]>('photos', async (styleIds) =>
      groupByKey(styleIds, await repositories.photos.findByStyleIds(styleIds), (row) => row.style_id, (row) => row),
    ),
    skus: batched<SkuRow[]>('skus', async (styleIds) =>
      groupByKey(styleIds, await repositories.skus.findByStyleIds(styleIds), (row) => row.style_id, (row) => row),
    ),
    relatedIds: batched<number[]>('relatedIds', async (productIds) => {
      const rows = await repositories.related.findByProductIds(productIds);
      // A related list changes when a product in it is deleted (cascade), so tag those too.
      tags.addProducts(rows.map((row) => row.related_product_id));
      return groupByKey(productIds, rows, (row) => row.product_id, (row) => row.related_product_id);
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

import DataLoader from 'dataloader';
import type { Repositories } from '../repository/index.js';
import type { ProductRow } from '../repository/products.js';

type LoaderName = 'product' | 'productWithFeatures' | 'styleTrees' | 'relatedIds' | 'document';
type BatchObserver = (loader: LoaderName, size: number) => void;

/** Largest id list one statement carries. */
const MAX_BATCH = 100;

/**
 * App-wide batchers: the loads that concurrent requests issue in the same turn of the event loop
 * share one statement (Postgres does far less work per product in one statement for many ids
 * than in one statement per id). They batch only; nothing is cached across requests.
 */
export function createSharedBatchers(repositories: Repositories, observeBatch: BatchObserver) {
  const batcher = <Row extends { id: number }>(name: LoaderName, fetch: (ids: readonly number[]) => Promise<Row[]>) =>
    new DataLoader<number, Row | null>(
      async (ids) => {
        observeBatch(name, ids.length);
        const rows = await fetch(ids);
        const found = new Map(rows.map((row) => [row.id, row]));
        return ids.map((id) => found.get(id) ?? null);
      },
      // setImmediate: wait for every request whose I/O arrived in this turn, not just this one.
      { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: (run) => setImmediate(run) },
    );
  const { products, documents } = repositories;

  return {
    product: batcher<ProductRow>('product', (ids) => products.findByIds(ids)),
    productWithFeatures: batcher('productWithFeatures', (ids) => documents.findWithFeatures(ids)),
    styleTrees: batcher('styleTrees', (ids) => documents.findStyleTrees(ids)),
    relatedIds: batcher('relatedIds', (ids) => documents.findRelatedIds(ids)),
    document: batcher('document', (ids) => documents.findDocuments(ids)),
  };
}

export type SharedBatchers = ReturnType<typeof createSharedBatchers>;

import DataLoader from 'dataloader';
import type { ResponseTags } from '../cache/tags.js';
import type { SharedBatchers } from './shared-batchers.js';

type Batcher = keyof SharedBatchers;
type RowOf<B extends Batcher> = SharedBatchers[B] extends DataLoader<number, infer Row> ? Row : never;

/**
 * Per-request DataLoaders over products and their relations: within a request each id is read
 * once, and every read tags the response with the product ids it used (asked for, or found in a
 * related list: deleting a related product changes that list). The reads themselves go through
 * the app-wide batchers, so concurrent requests share statements. Each loader is made on first
 * use: most requests need one of them, a list page none.
 */
class RequestLoaders {
  private readonly made: { [B in Batcher]?: DataLoader<number, RowOf<B>> } = {};

  constructor(
    private readonly batchers: SharedBatchers,
    private readonly tags: ResponseTags,
  ) {}

  get product() {
    return this.loader('product');
  }
  get productWithFeatures() {
    return this.loader('productWithFeatures');
  }
  get styleTrees() {
    return this.loader('styleTrees');
  }
  get relatedIds() {
    return this.loader('relatedIds', (row) => row.related_ids);
  }
  get document() {
    return this.loader('document', (row) => row.related_ids);
  }

  private loader<B extends Batcher>(name: B, relatedIdsOf?: (row: NonNullable<RowOf<B>>) => number[]): DataLoader<number, RowOf<B>> {
    let loader = this.made[name] as DataLoader<number, RowOf<B>> | undefined;
    if (!loader) {
      const shared = this.batchers[name] as unknown as DataLoader<number, RowOf<B>>;
      const tags = this.tags;
      loader = new DataLoader<number, RowOf<B>>(
        async (ids) => {
          tags.addProducts(ids);
          const rows = await shared.loadMany(ids);
          if (relatedIdsOf) {
            for (const row of rows) if (row && !(row instanceof Error)) tags.addProducts(relatedIdsOf(row as NonNullable<RowOf<B>>));
          }
          return rows;
        },
        { name },
      );
      (this.made as Record<Batcher, unknown>)[name] = loader;
    }
    return loader;
  }
}

export function createLoaders(batchers: SharedBatchers, tags: ResponseTags) {
  return new RequestLoaders(batchers, tags);
}

export type Loaders = RequestLoaders;

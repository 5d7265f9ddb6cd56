import type { ResponseCache } from './cache/response-cache.js';
import { ResponseTags } from './cache/tags.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { PersistedQueryStore } from './graphql/persisted-query-store.js';
import type { TrustedDocuments } from './graphql/trusted-documents.js';
import type { ClientLimits } from './limits/client-limits.js';
import { createLoaders, type Loaders } from './loaders/index.js';
import type { SharedBatchers } from './loaders/shared-batchers.js';
import type { Metrics } from './metrics/metrics.js';
import type { ProductPager } from './paging/product-pager.js';
import type { Repositories } from './repository/index.js';
import type { ProductWrites } from './writes/product-writes.js';

/** The long-lived parts every route and resolver works with. */
export interface Services {
  config: Config;
  db: Database;
  repositories: Repositories;
  batchers: SharedBatchers;
  pager: ProductPager;
  cache: ResponseCache;
  /** Automatic persisted queries, shared through the cache's Redis. */
  persistedQueries: PersistedQueryStore;
  /** Trusted-documents mode's manifest: only its operations run. Undefined when off. */
  trustedDocuments: TrustedDocuments | undefined;
  writes: ProductWrites;
  metrics: Metrics;
  /** Per-client request and GraphQL cost limits (a no-op when off). */
  limits: ClientLimits;
}

/** What one response is built with: fresh DataLoaders and the tags they collect. */
export interface RequestScope {
  tags: ResponseTags;
  loaders: Loaders;
}

export function createRequestScope(services: Services): RequestScope {
  const tags = new ResponseTags();
  return { tags, loaders: createLoaders(services.batchers, tags) };
}

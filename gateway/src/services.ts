import type { EdgePurger } from './cdn/edge-purger.js';
import type { PersistedQueryStore } from './cache/persisted-query-store.js';
import type { ResponseCache } from './cache/response-cache.js';
import { ResponseTags } from './cache/tags.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { ReadTarget, ReadTargets } from './db/read-targets.js';
import type { ClientLimits } from './limits/client-limits.js';
import { createLoaders, type Loaders } from './loaders/index.js';
import type { Metrics } from './metrics/metrics.js';
import type { CacheLookup } from './pipeline/cache-lookup.js';
import type { FrontDoor } from './pipeline/front-door.js';
import type { ResponseWriter } from './pipeline/response-writer.js';
import type { ProductPager } from './paging/product-pager.js';
import type { Repositories } from './repository/index.js';
import type { ProductWrites } from './writes/product-writes.js';

/** The long-lived parts every route and resolver works with. */
export interface Services {
  config: Config;
  /** The primary's pool and repositories (writes, health, listings): `reads.primary`'s. */
  db: Database;
  repositories: Repositories;
  /** Where reads may go: `reads.primary`, or `reads.pickReplica()` for a read a replica may serve. */
  reads: ReadTargets;
  pager: ProductPager;
  cache: ResponseCache;
  /** The request pipeline's stages routes take part in: the cache look-up, and the one writer of every answer. */
  pipeline: { frontDoor: FrontDoor; lookup: CacheLookup; writer: ResponseWriter };
  /** Automatic persisted queries, shared through the cache's Redis. */
  persistedQueries: PersistedQueryStore;
  writes: ProductWrites;
  /** Purges the shared caches (Varnish, a CDN) in front of the fleet: what captures changes made outside the gateway feeds it too. */
  edgePurger: EdgePurger;
  metrics: Metrics;
  /** Per-client request and GraphQL cost limits (a no-op when off). */
  limits: ClientLimits;
}

/** What one response is built with: fresh DataLoaders over one read target, and the tags they collect. */
export interface RequestScope {
  tags: ResponseTags;
  loaders: Loaders;
  /** Where the loaders read: the primary unless the caller chose a replica. */
  target: ReadTarget;
}

export function createRequestScope(services: Services, target: ReadTarget = services.reads.primary): RequestScope {
  const tags = new ResponseTags();
  return { tags, loaders: createLoaders(target.batchers, tags), target };
}

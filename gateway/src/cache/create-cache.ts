import type { Logger } from 'pino';
import type { Coherence } from '../coherence/coherence.js';
import type { Config } from '../config.js';
import type { CatalogEvents } from '../events/catalog-events.js';
import type { CacheReport } from './cache-report.js';
import type { SharedRedis } from '../redis/shared-redis.js';
import { MemoryStore } from './memory-store.js';
import { RedisStore } from './redis-store.js';
import { RepresentationEncoder } from './representations.js';
import { ResponseCache } from './response-cache.js';

/**
 * How long a tag's version is kept in Redis: longer than any response stored under it lives.
 * Positive even with the cache off (nothing stored): writes still announce through the clock.
 */
export const tagVersionTtlMs = (ttlSeconds: number): number => Math.max(ttlSeconds * 2_000, 1_000);

/** The response cache as configured: in-process only, or in-process in front of shared Redis. */
export function createCache(
  config: Config,
  {
    events,
    coherence,
    redis,
    report,
    logger,
    sharedCachesPurged,
  }: {
    events: CatalogEvents;
    coherence: Coherence;
    redis?: SharedRedis;
    report: CacheReport;
    logger: Logger;
    /** Whether every change purges the shared caches (a purge target is configured): then they may keep responses `s-maxage`. */
    sharedCachesPurged: boolean;
  },
): ResponseCache {
  const memory = new MemoryStore({ maxEntries: config.CACHE_MAX_ENTRIES, maxBytes: config.CACHE_MAX_BYTES });
  const encoder = new RepresentationEncoder({
    maxAgeSeconds: config.HTTP_CACHE_MAX_AGE_SECONDS,
    staleWhileRevalidateSeconds: config.HTTP_CACHE_STALE_WHILE_REVALIDATE_SECONDS,
    sharedMaxAgeSeconds: sharedCachesPurged ? config.HTTP_CACHE_SHARED_MAX_AGE_SECONDS : undefined,
    surrogateHeaders: { spaceSeparated: config.EDGE_SURROGATE_KEY_HEADER, commaSeparated: config.EDGE_CACHE_TAG_HEADER },
  });
  const store =
    redis && coherence.clock
      ? new RedisStore(redis, coherence.clock, (readAt, tags) => coherence.judgeShared(readAt, tags), {
          versionTtlMs: tagVersionTtlMs(config.CACHE_TTL_SECONDS),
          maxEntriesPerTag: config.CACHE_MAX_ENTRIES_PER_TAG,
          maxEntryBytes: config.CACHE_MAX_ENTRY_BYTES,
        })
      : undefined;
  return new ResponseCache({
    ttlSeconds: config.CACHE_TTL_SECONDS,
    encoder,
    memory,
    redis: store,
    coherence,
    readOn: (compute) => coherence.readOn(compute),
    events,
    report,
    logger,
    redisFailed: redis?.failed ?? (() => {}),
  });
}

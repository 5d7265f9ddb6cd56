import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CatalogEvents } from '../events/catalog-events.js';
import { RedisChangeRelay } from '../events/redis-change-relay.js';
import type { Metrics } from '../metrics/metrics.js';
import { MemoryStore } from './memory-store.js';
import { connectRedis } from './redis-connection.js';
import { RedisBreaker, redisFailureReport, type RedisFailureReport } from './redis-breaker.js';
import { RedisStore } from './redis-store.js';
import { RepresentationEncoder } from './representations.js';
import { ResponseCache } from './response-cache.js';

/** The cache's Redis connection and its failure handling, for other shared state (persisted queries). */
export interface SharedRedis {
  client: Redis;
  breaker: RedisBreaker;
  failed: RedisFailureReport;
}

/** The response cache and the Redis parts it runs on, all released by `close()`. */
export interface CacheParts {
  cache: ResponseCache;
  /** Absent without REDIS_URL. */
  redis?: SharedRedis;
  close(): Promise<void>;
}

/**
 * The response cache as configured: in-process only, or in-process in front of shared Redis.
 * With Redis, the replica also relays catalog changes through it: its own announced to every
 * replica, theirs fed into the catalog events (whether or not the cache is on: page anchors
 * depend on them).
 */
export function createCache(config: Config, events: CatalogEvents, metrics: Metrics, logger: Logger): CacheParts {
  const memory = new MemoryStore({ maxEntries: config.CACHE_MAX_ENTRIES, maxBytes: config.CACHE_MAX_BYTES });
  const redisFailed = redisFailureReport(metrics, logger);
  const encoder = new RepresentationEncoder({
    maxAgeSeconds: config.HTTP_CACHE_MAX_AGE_SECONDS,
    staleWhileRevalidateSeconds: config.HTTP_CACHE_STALE_WHILE_REVALIDATE_SECONDS,
  });
  const common = { ttlSeconds: config.CACHE_TTL_SECONDS, encoder, memory, events, metrics, logger, redisFailed };
  if (!config.REDIS_URL) {
    const cache = new ResponseCache(common);
    return { cache, close: () => cache.settled() };
  }
  const client = connectRedis(config.REDIS_URL, config.REDIS_COMMAND_TIMEOUT_MS, logger, 'cache');
  const subscriber = connectRedis(config.REDIS_URL, config.REDIS_COMMAND_TIMEOUT_MS, logger, 'invalidation subscriber');
  const breaker = new RedisBreaker(metrics, logger);
  const store = new RedisStore(client, breaker);
  const relay = new RedisChangeRelay({
    subscriber,
    announce: (tags) => store.invalidate(tags, tagVersionTtlMs(config.CACHE_TTL_SECONDS)),
    readGeneration: () => store.generation(),
    onRedisError: redisFailed,
    events,
    logger,
  });
  const cache = new ResponseCache({ ...common, redis: { store, heardGeneration: () => relay.heardGeneration } });
  return {
    cache,
    redis: { client, breaker, failed: redisFailed },
    async close() {
      relay.stop();
      await cache.settled();
      breaker.shutdown();
      await Promise.all([client, subscriber].map(quitRedis));
    },
  };
}

/**
 * How long a tag's invalidation version is kept: longer than any response stored before it lives.
 * Positive even with the cache off (nothing stored): Redis refuses an expiry of 0, and the
 * announcement (paging depends on it) would fail with it.
 */
const tagVersionTtlMs = (ttlSeconds: number): number => Math.max(ttlSeconds * 2_000, 1_000);

// quit() flushes politely; when Redis is away it fails, and disconnect() stops the reconnect loop.
const quitRedis = (connection: Redis): Promise<unknown> => connection.quit().catch(() => connection.disconnect());

import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CatalogEvents } from '../events/catalog-events.js';
import { RedisChangeFeed } from '../events/redis-change-feed.js';
import type { Metrics } from '../metrics/metrics.js';
import { MemoryStore } from './memory-store.js';
import { connectRedis } from './redis-connection.js';
import { RedisBreaker, redisFailureReport } from './redis-breaker.js';
import { RedisStore } from './redis-store.js';
import { ResponseCache } from './response-cache.js';

/** The response cache and the Redis parts it runs on, all released by `close()`. */
export interface CacheParts {
  cache: ResponseCache;
  close(): Promise<void>;
}

/**
 * The response cache as configured: in-process only, or in-process in front of shared Redis.
 * With Redis, the replica also hears every other replica's changes on Redis pub/sub and feeds
 * them into the catalog events (whether or not the cache is on: page anchors depend on them).
 */
export function createCache(config: Config, events: CatalogEvents, metrics: Metrics, logger: Logger): CacheParts {
  const memory = new MemoryStore({ maxEntries: config.CACHE_MAX_ENTRIES, maxBytes: config.CACHE_MAX_BYTES });
  const redisFailed = redisFailureReport(metrics, logger);
  const common = { ttlSeconds: config.CACHE_TTL_SECONDS, memory, events, metrics, logger, redisFailed };
  if (!config.REDIS_URL) {
    const cache = new ResponseCache(common);
    return { cache, close: () => closeCache(cache) };
  }
  const client = connectRedis(config.REDIS_URL, config.REDIS_COMMAND_TIMEOUT_MS, logger, 'cache');
  const subscriber = connectRedis(config.REDIS_URL, config.REDIS_COMMAND_TIMEOUT_MS, logger, 'invalidation subscriber');
  const breaker = new RedisBreaker(metrics, logger);
  const store = new RedisStore(client, breaker);
  const feed = new RedisChangeFeed({ subscriber, readGeneration: () => store.generation(), onRedisError: redisFailed, events, logger });
  const cache = new ResponseCache({ ...common, redis: { store, heardGeneration: () => feed.heardGeneration } });
  return {
    cache,
    async close() {
      feed.stop();
      await closeCache(cache);
      breaker.shutdown();
      await Promise.all([client, subscriber].map(quitRedis));
    },
  };
}

/** Lets the background Redis writes finish, then stops the retries. */
async function closeCache(cache: ResponseCache): Promise<void> {
  await cache.settled();
  cache.stop();
}

// quit() flushes politely; when Redis is away it fails, and disconnect() stops the reconnect loop.
const quitRedis = (connection: Redis): Promise<unknown> => connection.quit().catch(() => connection.disconnect());

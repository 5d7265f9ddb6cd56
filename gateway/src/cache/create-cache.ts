import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics/metrics.js';
import { MemoryStore } from './memory-store.js';
import { connectRedis } from './redis-connection.js';
import { RedisBreaker } from './redis-breaker.js';
import { RedisStore } from './redis-store.js';
import { ResponseCache } from './response-cache.js';

/** The response cache as configured: in-process only, or in-process in front of shared Redis. */
export function createCache(
  config: Config,
  metrics: Metrics,
  logger: Logger,
): { cache: ResponseCache; connections: Redis[]; breaker?: RedisBreaker } {
  const memory = new MemoryStore({ maxEntries: config.CACHE_MAX_ENTRIES, maxBytes: config.CACHE_MAX_BYTES });
  if (!config.REDIS_URL) {
    return { cache: new ResponseCache({ ttlSeconds: config.CACHE_TTL_SECONDS, memory, metrics, logger }), connections: [] };
  }
  const client = connectRedis(config.REDIS_URL, config.REDIS_COMMAND_TIMEOUT_MS, logger, 'cache');
  const subscriber = connectRedis(config.REDIS_URL, config.REDIS_COMMAND_TIMEOUT_MS, logger, 'invalidation subscriber');
  const breaker = new RedisBreaker(metrics, logger);
  const cache = new ResponseCache({
    ttlSeconds: config.CACHE_TTL_SECONDS,
    memory,
    redis: { store: new RedisStore(client, breaker), subscriber },
    metrics,
    logger,
  });
  return { cache, connections: [client, subscriber], breaker };
}

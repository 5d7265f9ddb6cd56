import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * A Redis connection that never makes a request wait for Redis: commands fail at once while it
 * is disconnected (no offline queue, no retries) or after a short timeout, and it keeps
 * reconnecting in the background. Connection changes are logged once per transition.
 */
export function connectRedis(url: string, commandTimeoutMs: number, logger: Logger, role: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 1_000,
    autoResubscribe: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    // Commands issued in one turn of the event loop (a batch of requests finishing together)
    // go out in one write instead of one system call each.
    enableAutoPipelining: true,
  });
  let healthy = true;
  redis.on('ready', () => {
    if (!healthy) logger.info({ role }, 'redis reconnected');
    healthy = true;
  });
  redis.on('error', (error) => {
    if (healthy) logger.warn({ role, err: error }, 'redis unavailable; serving without it until it is back');
    healthy = false;
  });
  return redis;
}

import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { RedisBreaker, redisFailureReport, type RedisFailureReport, type RedisReport } from './breaker.js';
import { connectRedis, ServerIdentity, type RedisSettings } from './connection.js';
import { invalidationChannel } from './keys.js';
import { defineScripts } from './scripts/index.js';

/**
 * The one Redis of a gateway process, shared by the response cache, the coherence protocol, the
 * persisted queries and the rate limits: a command connection with its server identity, a
 * connection in subscriber mode, and the circuit breaker that request paths go through.
 */
export interface SharedRedis {
  client: Redis;
  /** In subscriber mode: only (P)SUBSCRIBE and friends may be sent on it. */
  subscriber: Redis;
  server: ServerIdentity;
  /** The coherence clock's channel, of the database the connections use. */
  invalidationChannel: string;
  breaker: RedisBreaker;
  failed: RedisFailureReport;
  close(): Promise<void>;
}

/** Redis as configured: by URL, or through Sentinels; undefined when neither is set. */
export function redisSettingsOf(config: Config): RedisSettings | undefined {
  const { REDIS_URL, REDIS_SENTINELS, REDIS_SENTINEL_MASTER, REDIS_PASSWORD, REDIS_SENTINEL_PASSWORD, REDIS_COMMAND_TIMEOUT_MS } = config;
  const commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS;
  if (REDIS_URL) return { location: { url: REDIS_URL, password: REDIS_PASSWORD }, commandTimeoutMs };
  if (REDIS_SENTINELS.length === 0) return undefined;
  return {
    location: {
      sentinels: REDIS_SENTINELS,
      masterName: REDIS_SENTINEL_MASTER,
      password: REDIS_PASSWORD,
      sentinelPassword: REDIS_SENTINEL_PASSWORD,
    },
    commandTimeoutMs,
  };
}

export function connectSharedRedis(settings: RedisSettings, report: RedisReport, logger: Logger): SharedRedis {
  const client = connectRedis(settings, logger, 'commands');
  defineScripts(client);
  const subscriber = connectRedis(settings, logger, 'subscriber');
  const breaker = new RedisBreaker(report, logger);
  return {
    client,
    subscriber,
    server: new ServerIdentity(client),
    invalidationChannel: invalidationChannel(client.options.db ?? 0),
    breaker,
    failed: redisFailureReport(report, logger),
    async close() {
      breaker.shutdown();
      await Promise.all([client, subscriber].map(quitRedis));
    },
  };
}

// quit() flushes politely; when Redis is away it fails, and disconnect() stops the reconnect loop.
const quitRedis = (connection: Redis): Promise<unknown> => connection.quit().catch(() => connection.disconnect());

import { setTimeout as sleep } from 'node:timers/promises';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** Where Redis is: one server by URL, or a master group found through Sentinels. */
export type RedisLocation =
  | { url: string; password?: string }
  | {
      sentinels: { host: string; port: number }[];
      masterName: string;
      password?: string;
      sentinelPassword?: string;
    };

export interface RedisSettings {
  location: RedisLocation;
  commandTimeoutMs: number;
}

/**
 * A Redis connection that never makes a request wait for Redis: commands fail at once while it
 * is disconnected (no offline queue, no retries) or after a short timeout, and it keeps
 * reconnecting in the background — through the Sentinels to whichever server is master now, when
 * configured so. Connection changes are logged once per transition.
 */
export function connectRedis({ location, commandTimeoutMs }: RedisSettings, logger: Logger, role: string): Redis {
  const common: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 1_000,
    autoResubscribe: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    // Commands issued in one turn of the event loop (a batch of requests finishing together)
    // go out in one write instead of one system call each.
    enableAutoPipelining: true,
  };
  const redis =
    'url' in location
      ? new Redis(location.url, { ...common, ...(location.password ? { password: location.password } : {}) })
      : new Redis({
          ...common,
          sentinels: location.sentinels,
          name: location.masterName,
          password: location.password,
          sentinelPassword: location.sentinelPassword,
          sentinelCommandTimeout: commandTimeoutMs,
          sentinelRetryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
          // Sentinels tell of a failover as it happens, instead of the next failed command.
          failoverDetector: true,
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

/** How soon an unanswered INFO is asked again, while the connection stays up. */
const RELEARN_MS = 250;

/**
 * The identity (`run_id`) of the Redis server a connection talks to, learnt on every (re)connect
 * before the connection is used for the coherence protocol: a new `run_id` behind the same
 * connection means a restart or a failover, after which Redis may have lost recent writes. An
 * INFO that goes unanswered (a server busy right after a failover) is asked again while the
 * connection stays up: without the run_id this process announces nothing, however healthy Redis is.
 */
export class ServerIdentity {
  private current: string | undefined;
  private learning = false;

  constructor(private readonly redis: Redis) {
    redis.on('ready', () => void this.learn());
    redis.on('close', () => {
      this.current = undefined;
    });
    if (redis.status === 'ready') void this.learn();
  }

  /** The server's run_id, or undefined while unknown (disconnected, or not answered yet). */
  get runId(): string | undefined {
    return this.current;
  }

  private async learn(): Promise<void> {
    if (this.learning) return;
    this.learning = true;
    try {
      while (this.redis.status === 'ready') {
        try {
          const info = await this.redis.info('server');
          // Answered: a server that names no run_id is not asked again.
          this.current = /^run_id:(\w+)/m.exec(info)?.[1];
          return;
        } catch {
          await sleep(RELEARN_MS, undefined, { ref: false });
        }
      }
    } finally {
      this.learning = false;
    }
  }
}

import { LRUCache } from 'lru-cache';
import { redisPersistedQueryKey } from '../redis/keys.js';
import type { SharedRedis } from '../redis/shared-redis.js';

/** Query text remembered in-process, in UTF-16 code units (clients send a few dozen operations of a few KiB). */
const REMEMBERED_TEXT = 16 * 1024 ** 2;

/**
 * The automatic-persisted-query store: SHA-256 → query text. Every replica reads and writes the
 * same Redis keys, so a query registered on one is known to all; an in-process LRU in front
 * answers repeated hashes without a round trip. Redis goes through the response cache's
 * connection and circuit breaker: when it is down or stalled, lookups cost at most one command
 * timeout (nothing while the circuit is open) and miss, so the client re-sends the text once,
 * and registrations stay in-process until Redis is back.
 */
export class PersistedQueryStore {
  private readonly memory = new LRUCache<string, string>({ maxSize: REMEMBERED_TEXT, sizeCalculation: (text) => Math.max(1, text.length) });
  private readonly pendingWrites = new Set<Promise<void>>();

  constructor(
    private readonly redis: SharedRedis | undefined,
    private readonly ttlSeconds: number,
  ) {}

  /** The text registered under a verified hash, if any replica registered it. */
  async get(sha256Hash: string): Promise<string | undefined> {
    const local = this.memory.get(sha256Hash);
    const redis = this.redis;
    if (local !== undefined || !redis) return local;
    try {
      const shared = await redis.breaker.run(() => redis.client.get(redisPersistedQueryKey(sha256Hash)));
      if (shared === null) return undefined;
      this.memory.set(sha256Hash, shared);
      return shared;
    } catch (error) {
      redis.failed('apq_get', error);
      return undefined;
    }
  }

  /**
   * Remembers text under its (already verified) hash, here at once and in Redis in the
   * background: the client has its answer before the write lands. Always written, even when
   * known here: a client only re-sends text after some replica missed it in Redis.
   */
  register(sha256Hash: string, text: string): void {
    this.memory.set(sha256Hash, text);
    const redis = this.redis;
    if (!redis) return;
    const write = redis.breaker
      .run(() => redis.client.set(redisPersistedQueryKey(sha256Hash), text, 'EX', this.ttlSeconds))
      .then(
        () => undefined,
        (error: unknown) => redis.failed('apq_set', error),
      )
      .finally(() => this.pendingWrites.delete(write));
    this.pendingWrites.add(write);
  }

  /** Resolves once every background Redis write has finished (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all(this.pendingWrites);
  }
}

import type { Redis, Result } from 'ioredis';
import { decodeEntry, encodeEntry, type CacheEntry } from './entry.js';
import { INVALIDATION_CHANNEL, REDIS_KEY_PATTERNS, redisResponseKey, redisSweepKey, redisTagKey } from './keys.js';

// Stores a response (KEYS[1]) and adds it to its tag sets (KEYS[2..]), all expiring together;
// one command instead of two per tag.
const STORE_TAGGED = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], KEYS[1])
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
return #KEYS`;

// Deletes every response listed in the given tag sets, then the sets, atomically.
const EVICT_TAGGED = `
local removed = 0
for _, tag in ipairs(KEYS) do
  for _, key in ipairs(redis.call('SMEMBERS', tag)) do removed = removed + redis.call('DEL', key) end
  redis.call('DEL', tag)
end
return removed`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    storeTagged(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<number, Context>;
    evictTagged(numberOfKeys: number, ...keys: string[]): Result<number, Context>;
  }
}

/** The shared response cache every replica reads and every write evicts from. */
export class RedisStore {
  constructor(private readonly redis: Redis) {
    // Sent as EVALSHA (the script body only once per connection).
    redis.defineCommand('storeTagged', { lua: STORE_TAGGED });
    redis.defineCommand('evictTagged', { lua: EVICT_TAGGED });
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const text = await this.redis.get(redisResponseKey(key));
    return text === null ? undefined : decodeEntry(text);
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    const ttlMs = Math.max(1, entry.expiresAt - Date.now());
    // A tag set lives as long as the newest response in it.
    await this.redis.storeTagged(1 + entry.tags.length, redisResponseKey(key), ...entry.tags.map(redisTagKey), encodeEntry(entry), ttlMs);
  }

  /**
   * Deletes every cached response and tag set, once per swap: the first replica to claim the
   * swap id sweeps (a reconnect, whose swap is unknown, always sweeps).
   */
  async clearAll(swapId: string | undefined): Promise<void> {
    if (swapId !== undefined && (await this.redis.set(redisSweepKey(swapId), '1', 'EX', 3_600, 'NX')) !== 'OK') return;
    for (const pattern of REDIS_KEY_PATTERNS) {
      for await (const keys of this.redis.scanStream({ match: pattern, count: 1_000 }) as AsyncIterable<string[]>) {
        if (keys.length > 0) await this.redis.unlink(...keys);
      }
    }
  }

  /** Evicts the tagged responses and tells every replica (their in-process copies) about it. */
  async invalidate(tags: string[]): Promise<void> {
    await this.redis.evictTagged(tags.length, ...tags.map(redisTagKey));
    await this.redis.publish(INVALIDATION_CHANNEL, JSON.stringify(tags));
  }
}

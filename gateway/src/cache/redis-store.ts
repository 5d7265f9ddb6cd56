import type { Redis, Result } from 'ioredis';
import { decodeEntry, encodeEntry, type CacheEntry } from './entry.js';
import type { RedisBreaker } from './redis-breaker.js';
import { INVALIDATION_CHANNEL, REDIS_GENERATION_KEY } from '../events/redis-change-relay.js';
import { REDIS_KEY_PATTERNS, redisResponseKey, redisSweepKey, redisTagKey, redisTagVersionKey } from './keys.js';

// Stores a response (KEYS[1]) and adds it to its tag sets (KEYS[2..n+1]), all expiring together,
// unless one of its tags was invalidated (version in KEYS[n+2..2n+1]) after the generation at which
// the response was read (ARGV[3]): that response may predate the write, and storing it would
// serve stale data to every replica until the TTL. Returns 1 when stored, 0 when refused.
const STORE_TAGGED = `
local tags = tonumber(ARGV[4])
for i = 2 + tags, 1 + 2 * tags do
  local version = redis.call('GET', KEYS[i])
  if version and tonumber(version) > tonumber(ARGV[3]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
for i = 2, 1 + tags do
  redis.call('SADD', KEYS[i], KEYS[1])
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
return 1`;

// One invalidation, atomically: a new generation (KEYS[1]); every response listed in the tag sets
// (KEYS[2..n+1]) deleted with the sets; each tag's version (KEYS[n+2..2n+1]) set to the generation;
// and the message {generation, tags} published on ARGV[1]. Returns the generation.
const EVICT_TAGGED = `
local tags = tonumber(ARGV[3])
local generation = redis.call('INCR', KEYS[1])
for i = 2, 1 + tags do
  for _, key in ipairs(redis.call('SMEMBERS', KEYS[i])) do redis.call('DEL', key) end
  redis.call('DEL', KEYS[i])
  redis.call('SET', KEYS[i + tags], generation, 'PX', ARGV[4])
end
redis.call('PUBLISH', ARGV[1], '{"generation":' .. generation .. ',"tags":' .. ARGV[2] .. '}')
return generation`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    storeTagged(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<number, Context>;
    evictTagged(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<number, Context>;
  }
}

/**
 * The shared response cache every replica reads and every write evicts from. Every call goes
 * through the circuit breaker, so a sick Redis is skipped instead of waited for.
 */
export class RedisStore {
  constructor(
    private readonly redis: Redis,
    private readonly breaker: RedisBreaker,
  ) {
    // Sent as EVALSHA (the script body only once per connection).
    redis.defineCommand('storeTagged', { lua: STORE_TAGGED });
    redis.defineCommand('evictTagged', { lua: EVICT_TAGGED });
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const text = await this.breaker.run(() => this.redis.get(redisResponseKey(key)));
    return text === null ? undefined : decodeEntry(text);
  }

  /**
   * Stores a response read at invalidation generation `readGeneration`; refused (false) when one
   * of its tags was invalidated since. A tag set lives as long as the newest response in it.
   */
  async set(key: string, entry: CacheEntry, readGeneration: number): Promise<boolean> {
    const ttlMs = Math.max(1, entry.expiresAt - Date.now());
    const keys = [redisResponseKey(key), ...entry.tags.map(redisTagKey), ...entry.tags.map(redisTagVersionKey)];
    const stored = await this.breaker.run(() =>
      this.redis.storeTagged(keys.length, ...keys, encodeEntry(entry), ttlMs, readGeneration, entry.tags.length),
    );
    return stored === 1;
  }

  /** The current invalidation generation (0 before the first invalidation). */
  async generation(): Promise<number> {
    return Number((await this.breaker.run(() => this.redis.get(REDIS_GENERATION_KEY))) ?? 0);
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

  /**
   * Evicts the tagged responses and tells every replica (their in-process copies) about it;
   * returns the invalidation's generation. Tag versions outlive any response stored before them.
   */
  async invalidate(tags: string[], versionTtlMs: number): Promise<number> {
    const keys = [REDIS_GENERATION_KEY, ...tags.map(redisTagKey), ...tags.map(redisTagVersionKey)];
    return this.breaker.run(() =>
      this.redis.evictTagged(keys.length, ...keys, INVALIDATION_CHANNEL, JSON.stringify(tags), tags.length, versionTtlMs),
    );
  }
}

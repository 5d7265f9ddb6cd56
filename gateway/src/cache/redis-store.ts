import type { Redis } from 'ioredis';
import { decodeEntry, encodeEntry, type CacheEntry } from './entry.js';
import { INVALIDATION_CHANNEL, redisResponseKey, redisTagKey } from './keys.js';

// Deletes every response listed in the given tag sets, then the sets, atomically.
const EVICT_TAGGED = `
local removed = 0
for _, tag in ipairs(KEYS) do
  for _, key in ipairs(redis.call('SMEMBERS', tag)) do removed = removed + redis.call('DEL', key) end
  redis.call('DEL', tag)
end
return removed`;

/** The shared response cache every replica reads and every write evicts from. */
export class RedisStore {
  constructor(private readonly redis: Redis) {}

  async get(key: string): Promise<CacheEntry | undefined> {
    const text = await this.redis.get(redisResponseKey(key));
    return text === null ? undefined : decodeEntry(text);
  }

  async set(key: string, entry: CacheEntry): Promise<void> {
    const ttlMs = Math.max(1, entry.expiresAt - Date.now());
    const responseKey = redisResponseKey(key);
    const transaction = this.redis.multi().set(responseKey, encodeEntry(entry), 'PX', ttlMs);
    // A tag set lives as long as the newest response in it.
    for (const tag of entry.tags) transaction.sadd(redisTagKey(tag), responseKey).pexpire(redisTagKey(tag), ttlMs);
    await transaction.exec();
  }

  /** Evicts the tagged responses and tells every replica (their in-process copies) about it. */
  async invalidate(tags: string[]): Promise<void> {
    await this.redis.eval(EVICT_TAGGED, tags.length, ...tags.map(redisTagKey));
    await this.redis.publish(INVALIDATION_CHANNEL, JSON.stringify(tags));
  }
}

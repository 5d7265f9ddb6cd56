import type { ClockPosition, RedisClock } from '../coherence/clock.js';
import type { HeardVerdict } from '../coherence/heard-versions.js';
import { REDIS_CLOCK_KEY, redisResponseKey, redisTagCountKey, redisTagVersionKey } from '../redis/keys.js';
import type { SharedRedis } from '../redis/shared-redis.js';
import { decodeEntry, encodeEntry, type CacheEntry } from './entry.js';

/** Where a tag's version key starts (its tag follows). */
const TAG_VERSION_PREFIX = redisTagVersionKey('');

export type SharedStoreResult = 'stored' | 'refused' | 'full' | 'too_large';

/** Rule 1 judged in the process from what it heard (Coherence.judgeShared). */
export type JudgeShared = (readAt: ClockPosition, tags: readonly string[]) => HeardVerdict;

export interface RedisStoreLimits {
  /** How long a tag's version outlives any response stored under it. */
  versionTtlMs: number;
  /** CACHE_MAX_ENTRIES_PER_TAG */
  maxEntriesPerTag: number;
  /** CACHE_MAX_ENTRY_BYTES */
  maxEntryBytes: number;
}

/**
 * The shared response cache every replica reads and fills. Entries are checked on every read and
 * store, so nothing relies on any key surviving: on read by what this process heard while its
 * lease holds (a plain GET), else by the check script against the clock in Redis. Every call goes
 * through the circuit breaker, so a sick Redis is skipped instead of waited for.
 */
export class RedisStore {
  constructor(
    private readonly redis: SharedRedis,
    private readonly clock: RedisClock,
    private readonly judge: JudgeShared,
    private readonly limits: RedisStoreLimits,
  ) {}

  async load(key: string): Promise<CacheEntry | undefined> {
    const responseKey = redisResponseKey(key);
    const text = await this.redis.breaker.run(() => this.redis.client.get(responseKey));
    const stored = text === null ? undefined : decodeEntry(text);
    if (!stored) return undefined;
    const verdict = this.judge(stored.readAt, stored.entry.tags);
    if (verdict !== 'unknown') return verdict === 'valid' ? stored.entry : undefined;
    const checked = await this.redis.breaker.run(() =>
      this.redis.client.coherenceLoad(2, REDIS_CLOCK_KEY, responseKey, ...this.clock.prologue(), TAG_VERSION_PREFIX),
    );
    return checked === null ? undefined : decodeEntry(checked)?.entry;
  }

  /** Stores a response whose data was read at `readAt`, if nothing it depends on moved since. */
  async store(key: string, entry: CacheEntry, readAt: ClockPosition): Promise<SharedStoreResult> {
    if (Buffer.byteLength(entry.body) > this.limits.maxEntryBytes) return 'too_large';
    const ttlMs = Math.max(1, entry.expiresAt - Date.now());
    const keys = [REDIS_CLOCK_KEY, redisResponseKey(key), ...entry.tags.map(redisTagVersionKey), ...entry.tags.map(redisTagCountKey)];
    const { versionTtlMs, maxEntriesPerTag } = this.limits;
    const result = await this.redis.breaker.run(() =>
      this.redis.client.coherenceStore(
        keys.length,
        ...keys,
        ...this.clock.prologue(),
        readAt.epoch,
        readAt.seq,
        ttlMs,
        versionTtlMs,
        maxEntriesPerTag,
        encodeEntry(entry, readAt),
        TAG_VERSION_PREFIX,
      ),
    );
    return result === 1 ? 'stored' : result === -1 ? 'full' : 'refused';
  }
}

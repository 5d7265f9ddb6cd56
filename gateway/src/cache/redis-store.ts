import type { Result } from 'ioredis';
import { CLOCK_PROLOGUE } from '../coherence/clock-scripts.js';
import type { ClockPosition, RedisClock } from '../coherence/clock.js';
import type { HeardVerdict } from '../coherence/heard-versions.js';
import { REDIS_CLOCK_KEY, redisResponseKey, redisTagCountKey, redisTagVersionKey } from '../redis/keys.js';
import type { SharedRedis } from '../redis/shared-redis.js';
import { decodeEntry, encodeEntry, ENTRY_HEADER_LINES, ENTRY_TAGS_LINE, type CacheEntry } from './entry.js';

/** Where a tag's version key starts (its tag follows). */
const TAG_VERSION_PREFIX = redisTagVersionKey('');

/**
 * A response if it is still valid (gateway/README.md, "Consistency", rule 1): KEYS[2] the
 * response, ARGV[4] the prefix of tag version keys. Valid when its epoch is the clock's and every
 * tag's version exists, is of that epoch and is at most the seq its data was read at. An invalid
 * one is deleted. Returns the text, or false.
 */
const LOAD = `${CLOCK_PROLOGUE}
local epoch = ensure_clock()
local text = redis.call('GET', KEYS[2])
if not text then return false end
local field = {}
local from = 1
for i = 1, ${ENTRY_HEADER_LINES} do
  local at = string.find(text, '\\n', from, true)
  if not at then redis.call('UNLINK', KEYS[2]) return false end
  field[i] = string.sub(text, from, at - 1)
  from = at + 1
end
if field[1] ~= epoch then redis.call('UNLINK', KEYS[2]) return false end
local read_seq = tonumber(field[2])
for tag in string.gmatch(field[${ENTRY_TAGS_LINE}], '%S+') do
  local version = version_of(redis.call('GET', ARGV[4] .. tag), epoch)
  if not version or version > read_seq then redis.call('UNLINK', KEYS[2]) return false end
end
return text`;

/**
 * Stores a response (rules 2 and 4): KEYS[2] the response, KEYS[3..2+n] its tags' versions,
 * KEYS[3+n..2+2n] their counts; ARGV[4] the read's epoch, [5] its seq, [6] TTL ms, [7] version TTL
 * ms, [8] most entries per tag, [9] the entry, [10] the tag version prefix. Refused (0) when the
 * epoch moved, or a tag is pending or was invalidated after the read began; a missing version is
 * made at the current seq, which then must not exceed the read's. -1 when a tag holds its most
 * entries already. 1 when stored.
 */
const STORE = `${CLOCK_PROLOGUE}
local epoch, seq = ensure_clock()
if epoch ~= ARGV[4] then return 0 end
local read_seq = tonumber(ARGV[5])
local n = (#KEYS - 2) / 2
local now = now_ms()
for i = 1, n do
  local version_key = KEYS[2 + i]
  local pending = redis.call('HGET', CLOCK, 'p:' .. string.sub(version_key, string.len(ARGV[10]) + 1))
  if pending and tonumber(pending) > now then return 0 end
  local version = version_of(redis.call('GET', version_key), epoch)
  if version then
    redis.call('PEXPIRE', version_key, ARGV[7])
  else
    version = seq
    redis.call('SET', version_key, epoch .. ':' .. seq, 'PX', ARGV[7])
  end
  if version > read_seq then return 0 end
end
for i = 1, n do
  local count_key = KEYS[2 + n + i]
  local count = redis.call('INCR', count_key)
  if count == 1 then redis.call('PEXPIRE', count_key, ARGV[6]) end
  if count > tonumber(ARGV[8]) then return -1 end
end
redis.call('SET', KEYS[2], ARGV[9], 'PX', ARGV[6])
return 1`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    coherenceLoad(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<string | null, Context>;
    coherenceStore(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Result<number, Context>;
  }
}

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
  ) {
    // Sent as EVALSHA (the script body only once per connection).
    redis.client.defineCommand('coherenceLoad', { lua: LOAD });
    redis.client.defineCommand('coherenceStore', { lua: STORE });
  }

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

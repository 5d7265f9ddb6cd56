import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics.js';
import type { CacheEntry } from './entry.js';
import { INVALIDATION_CHANNEL } from './keys.js';
import type { MemoryEntry, MemoryStore } from './memory-store.js';
import type { RedisStore } from './redis-store.js';
import { PRODUCT_LIST_TAG } from './tags.js';

export interface ServedResponse {
  status: number;
  body: string;
  meta: string;
  /** Extra response headers (e.g. Retry-After); cached responses have none. */
  headers?: Iterable<[string, string]>;
}

export interface ComputedResponse extends ServedResponse {
  tags: Iterable<string>;
  /** False for anything that must not be replayed: mutations, errors. */
  cacheable: boolean;
}

export interface ResponseCacheOptions {
  ttlSeconds: number;
  memory: MemoryStore;
  redis?: { store: RedisStore; subscriber: Redis };
  metrics: Metrics;
  logger: Logger;
}

type InvalidationListener = (tags: readonly string[]) => void;

// Lookup label sets made once: the hot path allocates nothing for its metrics.
const LOOKUP_LABELS = {
  memory: { hit: { backend: 'memory', result: 'hit' }, miss: { backend: 'memory', result: 'miss' } },
  redis: { hit: { backend: 'redis', result: 'hit' }, miss: { backend: 'redis', result: 'miss' } },
} as const;

/**
 * Whole-response cache: an in-process LRU in front of Redis (when configured). Concurrent misses
 * on one key share one computation. Writes evict by tag in Redis and announce the tags on a
 * pub/sub channel so every replica drops its in-process copies too. Redis failures only cost
 * cache hits: they are counted and logged, never passed to clients.
 */
export class ResponseCache {
  private readonly inflight = new Map<string, Promise<ServedResponse>>();
  private readonly listeners: InvalidationListener[] = [];
  private readonly pendingWrites = new Set<Promise<void>>();
  /** Bumped by every invalidation, so a computation that raced one is not stored. */
  private epoch = 0;
  private subscriberWasDown = false;

  constructor(private readonly options: ResponseCacheOptions) {
    const subscriber = options.redis?.subscriber;
    if (!subscriber) return;
    subscriber.on('ready', () => {
      subscriber.subscribe(INVALIDATION_CHANNEL).catch((error) => this.redisFailed('subscribe', error));
      // Invalidations published while we were cut off are lost: start over.
      if (this.subscriberWasDown) this.applyInvalidation([PRODUCT_LIST_TAG], true);
      this.subscriberWasDown = false;
    });
    subscriber.on('close', () => {
      this.subscriberWasDown = true;
    });
    subscriber.on('message', (_channel, message) => {
      try {
        this.applyInvalidation(JSON.parse(message) as string[], false);
      } catch (error) {
        options.logger.warn({ err: error, message }, 'ignoring malformed invalidation message');
      }
    });
  }

  get enabled(): boolean {
    return this.options.ttlSeconds > 0;
  }

  /** Called with the tags of every invalidation, local or heard from another replica. */
  onInvalidate(listener: InvalidationListener): void {
    this.listeners.push(listener);
  }

  /**
   * The in-process copy only, synchronously: lets the edge answer hot keys without a promise.
   * Counts nothing: the edge records its hits (HotHitRecorder), and a miss is counted by the
   * lookup that follows.
   */
  peek(key: string): MemoryEntry | undefined {
    return this.enabled ? this.options.memory.get(key) : undefined;
  }

  async getOrCompute(key: string, compute: () => Promise<ComputedResponse>): Promise<ServedResponse> {
    if (!this.enabled) return compute();
    const cached = this.inflight.get(key) ?? (await this.lookup(key));
    if (cached) return cached;
    let flight = this.inflight.get(key);
    if (!flight) {
      flight = this.computeAndStore(key, compute).finally(() => this.inflight.delete(key));
      this.inflight.set(key, flight);
    }
    return flight;
  }

  async invalidate(tags: string[]): Promise<void> {
    this.applyInvalidation(tags, false);
    const redis = this.options.redis;
    if (!redis) return;
    try {
      await redis.store.invalidate(tags);
    } catch (error) {
      // The write itself succeeded; other replicas converge when the TTL runs out.
      this.redisFailed('invalidate', error);
    }
  }

  /**
   * Drops every cached response, here and in Redis: a new catalog was swapped in around the
   * gateway. Every replica hears of the swap itself; the Redis sweep runs once per swap id.
   */
  clearAll(swapId: string | undefined): void {
    this.applyInvalidation([PRODUCT_LIST_TAG], true);
    const store = this.options.redis?.store;
    if (!store) return;
    const sweep = store
      .clearAll(swapId)
      .catch((error) => this.redisFailed('invalidate', error))
      .finally(() => this.pendingWrites.delete(sweep));
    this.pendingWrites.add(sweep);
  }

  private async lookup(key: string): Promise<ServedResponse | undefined> {
    const { memory, redis, metrics } = this.options;
    const local = memory.get(key);
    metrics.cacheLookups.inc(local ? LOOKUP_LABELS.memory.hit : LOOKUP_LABELS.memory.miss);
    if (local) return served(local);
    if (!redis) return undefined;
    let shared: CacheEntry | undefined;
    try {
      shared = await redis.store.get(key);
    } catch (error) {
      this.redisFailed('get', error);
    }
    metrics.cacheLookups.inc(shared ? LOOKUP_LABELS.redis.hit : LOOKUP_LABELS.redis.miss);
    if (!shared) return undefined;
    memory.set(key, shared);
    return served(shared);
  }

  private async computeAndStore(key: string, compute: () => Promise<ComputedResponse>): Promise<ServedResponse> {
    const epoch = this.epoch;
    const response = await compute();
    if (response.cacheable && response.status === 200 && epoch === this.epoch) {
      const entry: CacheEntry = {
        body: response.body,
        meta: response.meta,
        tags: [...response.tags],
        expiresAt: Date.now() + this.options.ttlSeconds * 1_000,
      };
      this.options.memory.set(key, entry);
      this.storeShared(key, entry);
    }
    return { status: response.status, body: response.body, meta: response.meta, headers: response.headers };
  }

  /**
   * Writes to Redis in the background: the client has its answer already, and cold traffic may
   * never read the entry back. Failures are counted like every other Redis failure.
   */
  private storeShared(key: string, entry: CacheEntry): void {
    const store = this.options.redis?.store;
    if (!store) return;
    const write = store
      .set(key, entry)
      .catch((error) => this.redisFailed('set', error))
      .finally(() => this.pendingWrites.delete(write));
    this.pendingWrites.add(write);
  }

  /** Resolves once every background Redis write started so far has finished (or failed). */
  async settled(): Promise<void> {
    await Promise.all(this.pendingWrites);
  }

  private applyInvalidation(tags: readonly string[], everything: boolean): void {
    this.epoch += 1;
    if (everything) this.options.memory.clear();
    else this.options.memory.evictTags(tags);
    for (const listener of this.listeners) listener(tags);
  }

  private redisFailed(operation: string, error: unknown): void {
    this.options.metrics.cacheErrors.inc({ backend: 'redis', operation });
    this.options.logger.debug({ err: error, operation }, 'redis cache operation failed');
  }
}

const served = (entry: CacheEntry): ServedResponse => ({ status: 200, body: entry.body, meta: entry.meta });

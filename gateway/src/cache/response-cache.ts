import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics.js';
import type { CacheEntry } from './entry.js';
import { INVALIDATION_CHANNEL } from './keys.js';
import type { MemoryEntry, MemoryStore } from './memory-store.js';
import { isCircuitOpen } from './redis-breaker.js';
import type { InvalidationMessage, RedisStore } from './redis-store.js';
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

/** How often a replica compares Redis's invalidation generation with the ones it heard. */
const GENERATION_CHECK_MS = 1_000;
/** First and longest wait before retrying an invalidation Redis did not take. */
const RETRY_FIRST_MS = 100;
const RETRY_LONGEST_MS = 2_000;

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
 *
 * Invalidations are never lost: one Redis did not take is retried until it does, and every
 * invalidation carries a generation, so a replica that missed one (a gap in the messages, or
 * Redis's generation ahead of what it heard for a whole check interval) clears its in-process
 * copies. A response is stored in Redis only if none of its tags was invalidated after the
 * generation at which it was read, so a slow replica cannot put back what another evicted.
 */
export class ResponseCache {
  private readonly inflight = new Map<string, Promise<ServedResponse>>();
  private readonly listeners: InvalidationListener[] = [];
  private readonly pendingWrites = new Set<Promise<void>>();
  /** Bumped by every invalidation, so a computation that raced one is not stored. */
  private epoch = 0;
  private subscriberWasDown = false;
  /** Highest invalidation generation this replica has heard of (messages, or Redis when it started). */
  private generation = 0;
  private generationSynced = false;
  /** A Redis generation seen ahead of `generation` at the last check, not heard of yet. */
  private unheardGeneration = 0;
  private readonly generationTimer?: NodeJS.Timeout;
  /** Tags whose invalidation Redis has not taken yet, and the retry waiting to deliver them. */
  private readonly undelivered = new Set<string>();
  private retryTimer?: NodeJS.Timeout;
  private retryDelayMs = RETRY_FIRST_MS;

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
        this.heard(JSON.parse(message) as InvalidationMessage);
      } catch (error) {
        options.logger.warn({ err: error, message }, 'ignoring malformed invalidation message');
      }
    });
    void this.checkGeneration();
    this.generationTimer = setInterval(() => void this.checkGeneration(), GENERATION_CHECK_MS);
    this.generationTimer.unref();
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
    if (!this.options.redis) return;
    await this.deliver(tags);
  }

  /** Evicts in Redis and tells the other replicas; what Redis does not take is retried until it does. */
  private async deliver(tags: string[]): Promise<void> {
    try {
      await this.options.redis!.store.invalidate(tags, this.options.ttlSeconds * 2_000);
    } catch (error) {
      this.redisFailed('invalidate', error);
      for (const tag of tags) this.undelivered.add(tag);
      this.scheduleRetry();
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      const tags = [...this.undelivered];
      this.undelivered.clear();
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_LONGEST_MS);
      void this.deliver(tags).then(() => {
        if (this.undelivered.size === 0) {
          this.retryDelayMs = RETRY_FIRST_MS;
          this.options.logger.info({ tags: tags.length }, 'delivered invalidations Redis had not taken');
        }
      });
    }, this.retryDelayMs);
  }

  /** An invalidation published by any replica (this one included). */
  private heard({ generation, tags }: InvalidationMessage): void {
    // A gap means an invalidation this replica never heard of: its tags are unknown, drop everything.
    const missed = this.generationSynced && generation > this.generation + 1;
    if (missed) this.options.logger.warn({ heard: generation, expected: this.generation + 1 }, 'missed an invalidation: clearing the in-process cache');
    this.applyInvalidation(missed ? [PRODUCT_LIST_TAG] : tags, missed);
    this.generation = Math.max(this.generation, generation);
  }

  /**
   * Compares Redis's generation with the ones heard. Ahead for one check is normal (a message on
   * its way); still ahead at the next check, the message was lost: drop everything.
   */
  private async checkGeneration(): Promise<void> {
    let current: number;
    try {
      current = await this.options.redis!.store.generation();
    } catch (error) {
      this.redisFailed('generation', error);
      return;
    }
    if (!this.generationSynced) {
      // Nothing cached yet predates what Redis knows.
      this.generation = Math.max(this.generation, current);
      this.generationSynced = true;
      return;
    }
    if (this.unheardGeneration > this.generation) {
      this.options.logger.warn({ heard: this.generation, redis: current }, 'invalidations were not heard: clearing the in-process cache');
      this.applyInvalidation([PRODUCT_LIST_TAG], true);
      this.generation = Math.max(this.generation, this.unheardGeneration);
    }
    this.unheardGeneration = current > this.generation ? current : 0;
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
    const readGeneration = this.generation;
    const response = await compute();
    if (response.cacheable && response.status === 200 && epoch === this.epoch) {
      const entry: CacheEntry = {
        body: response.body,
        meta: response.meta,
        tags: [...response.tags],
        expiresAt: Date.now() + this.options.ttlSeconds * 1_000,
      };
      this.options.memory.set(key, entry);
      this.storeShared(key, entry, readGeneration);
    }
    return { status: response.status, body: response.body, meta: response.meta, headers: response.headers };
  }

  /**
   * Writes to Redis in the background: the client has its answer already, and cold traffic may
   * never read the entry back. Failures are counted like every other Redis failure.
   */
  private storeShared(key: string, entry: CacheEntry, readGeneration: number): void {
    const store = this.options.redis?.store;
    if (!store) return;
    const write = store
      .set(key, entry, readGeneration)
      .then(() => undefined)
      .catch((error) => this.redisFailed('set', error))
      .finally(() => this.pendingWrites.delete(write));
    this.pendingWrites.add(write);
  }

  /** Resolves once every background Redis write started so far has finished (or failed). */
  async settled(): Promise<void> {
    await Promise.all(this.pendingWrites);
  }

  /** Stops the background checks and retries (on shutdown); says what could not be delivered. */
  stop(): void {
    clearInterval(this.generationTimer);
    clearTimeout(this.retryTimer);
    if (this.undelivered.size > 0) {
      this.options.logger.error({ tags: [...this.undelivered] }, 'shutting down with invalidations Redis never took: other replicas keep these until their TTL');
    }
  }

  private applyInvalidation(tags: readonly string[], everything: boolean): void {
    this.epoch += 1;
    if (everything) this.options.memory.clear();
    else this.options.memory.evictTags(tags);
    for (const listener of this.listeners) listener(tags);
  }

  private redisFailed(operation: string, error: unknown): void {
    // Reads and stores the open circuit refused never reached Redis: counted as rejections. An
    // invalidation it refused is still a failure to deliver (and will be retried).
    if (isCircuitOpen(error) && operation !== 'invalidate') return;
    this.options.metrics.cacheErrors.inc({ backend: 'redis', operation });
    this.options.logger.debug({ err: error, operation }, 'redis cache operation failed');
  }
}

const served = (entry: CacheEntry): ServedResponse => ({ status: 200, body: entry.body, meta: entry.meta });

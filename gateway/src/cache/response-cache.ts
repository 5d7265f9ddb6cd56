import type { Logger } from 'pino';
import type { CatalogChange, CatalogEvents } from '../events/catalog-events.js';
import { tagsOfChange } from '../events/change-tags.js';
import { CACHE_LOOKUPS } from '../metrics/cache-hit-recorder.js';
import type { Metrics } from '../metrics/metrics.js';
import { traceRedisLookup } from '../telemetry/cache-lookups.js';
import type { CacheEntry, CachedRoute } from './entry.js';
import { MemoryEntry, type MemoryStore } from './memory-store.js';
import type { RedisFailureReport } from './redis-breaker.js';
import type { RedisStore } from './redis-store.js';
import type { RepresentationEncoder, Representations } from './representations.js';

/** A response that is not a catalog read (an error, a mutation's answer): sent as it is. */
export interface PlainResponse {
  status: number;
  body: string;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Iterable<[string, string]>;
}

/** A catalog read: a 200 in every encoding, with its ETag and cache headers. */
export interface CatalogRead {
  status: 200;
  representations: Representations;
}

export type ServedResponse = PlainResponse | CatalogRead;

export interface ComputedResponse extends PlainResponse {
  route: CachedRoute;
  tags: Iterable<string>;
  /** False for anything that must not be replayed: mutations, errors. */
  cacheable: boolean;
}

export interface ResponseCacheOptions {
  ttlSeconds: number;
  /** Makes the encodings, ETag and headers of a cacheable body, once per body and replica. */
  encoder: RepresentationEncoder;
  memory: MemoryStore;
  redis?: {
    store: RedisStore;
    /** The newest invalidation generation this replica heard of (from the Redis change relay). */
    heardGeneration: () => number;
  };
  /** What the cache forgets: writes, changes heard from other replicas, catalog swaps, missed changes. */
  events: CatalogEvents;
  metrics: Metrics;
  logger: Logger;
  redisFailed: RedisFailureReport;
}

/**
 * Whole-response cache: an in-process LRU in front of Redis (when configured). Concurrent misses
 * on one key share one computation. It forgets what the catalog events say changed: the tagged
 * in-process copies of a `changed` product or list (Redis evicts its copies in the same step
 * that announces a change to every replica: `events/redis-change-relay.ts`), everything on
 * `swapped` (and Redis too, once per swap) and on `missed`. Redis failures only cost cache hits:
 * they are counted and logged, never passed to clients.
 *
 * A response is stored in Redis only if none of its tags was invalidated after the generation at
 * which it was read, so a slow replica cannot put back what another evicted.
 */
export class ResponseCache {
  private readonly inflight = new Map<string, Promise<ServedResponse>>();
  private readonly pendingWrites = new Set<Promise<void>>();
  /** Bumped by every invalidation, so a computation that raced one is not stored. */
  private epoch = 0;

  constructor(private readonly options: ResponseCacheOptions) {
    options.events.on('changed', (change) => this.changed(change));
    options.events.on('swapped', ({ swapId }) => this.clearAll(swapId));
    options.events.on('missed', () => this.forgetEverything());
  }

  get enabled(): boolean {
    return this.options.ttlSeconds > 0;
  }

  /**
   * The in-process copy only, synchronously: lets the edge answer hot keys without a promise.
   * Counts nothing: the edge records its hits (CacheHitRecorder), and a miss is counted by the
   * lookup that follows (`sharedEntry` or `getOrCompute`).
   */
  peek(key: string): MemoryEntry | undefined {
    return this.enabled ? this.options.memory.get(key) : undefined;
  }

  /** Whether responses are shared with other replicas (through Redis): worth asking after a `peek` missed. */
  get shared(): boolean {
    return this.enabled && this.options.redis !== undefined;
  }

  /**
   * After the in-process copy missed (counted here): the shared copy, kept in memory on its way
   * (so the next request is a hit). Lets the edge answer what Redis holds without a route; a
   * Redis failure is counted and reads as a miss.
   */
  async sharedEntry(key: string): Promise<MemoryEntry | undefined> {
    const { memory, redis, metrics } = this.options;
    metrics.cacheHitRecorder.countLookup(CACHE_LOOKUPS.memory.miss);
    if (!redis || !this.enabled) return undefined;
    let shared: CacheEntry | undefined;
    try {
      shared = await traceRedisLookup(redis.store, key);
    } catch (error) {
      this.options.redisFailed('get', error);
    }
    metrics.cacheHitRecorder.countLookup(shared ? CACHE_LOOKUPS.redis.hit : CACHE_LOOKUPS.redis.miss);
    if (!shared) return undefined;
    // Redis holds the body as is, with its ETag: this replica encodes it once, on its way into memory.
    const entry = new MemoryEntry(shared, this.options.encoder.encode(shared.body, shared.etag));
    memory.set(key, entry);
    return entry;
  }

  /**
   * The response for `key`: from memory, Redis, an identical computation in flight, or `compute`.
   * Cacheable 200s come back as catalog reads, encoded even when the cache is off or cannot keep
   * them (HTTP caches and compression still apply). `key` may be a function making the key, when
   * making it costs something: it is called only when the cache is on. `lookedUp`: the edge asked
   * memory and Redis for this very request already (`sharedEntry`), and both missed.
   */
  async getOrCompute(
    keyOrMaker: string | (() => string),
    compute: () => Promise<ComputedResponse>,
    lookedUp = false,
  ): Promise<ServedResponse> {
    if (!this.enabled) return this.encoded(await compute());
    const key = typeof keyOrMaker === 'string' ? keyOrMaker : keyOrMaker();
    const cached = this.inflight.get(key) ?? (lookedUp ? undefined : await this.lookup(key));
    if (cached) return cached;
    let flight = this.inflight.get(key);
    if (!flight) {
      flight = this.computeAndStore(key, compute).finally(() => this.inflight.delete(key));
      this.inflight.set(key, flight);
    }
    return flight;
  }

  /** Evicts what a change made stale (Redis evicts in the same step that announces a change). */
  private changed(change: CatalogChange): void {
    this.evict(tagsOfChange(change));
  }

  /**
   * Drops every cached response, here and in Redis: a new catalog was swapped in around the
   * gateway. Every replica hears of the swap itself; the Redis sweep runs once per swap id.
   */
  private clearAll(swapId: string | undefined): void {
    this.forgetEverything();
    const store = this.options.redis?.store;
    if (!store) return;
    const sweep = store
      .clearAll(swapId)
      .catch((error) => this.options.redisFailed('invalidate', error))
      .finally(() => this.pendingWrites.delete(sweep));
    this.pendingWrites.add(sweep);
  }

  private async lookup(key: string): Promise<ServedResponse | undefined> {
    const local = this.options.memory.get(key);
    if (!local) {
      const shared = await this.sharedEntry(key);
      return shared && catalogRead(shared);
    }
    this.options.metrics.cacheHitRecorder.countLookup(CACHE_LOOKUPS.memory.hit);
    return catalogRead(local);
  }

  private async computeAndStore(key: string, compute: () => Promise<ComputedResponse>): Promise<ServedResponse> {
    const epoch = this.epoch;
    const readGeneration = this.options.redis?.heardGeneration() ?? 0;
    const response = await compute();
    const served = this.encoded(response);
    if ('representations' in served && epoch === this.epoch) {
      const entry: CacheEntry = {
        body: response.body,
        etag: served.representations.etag,
        route: response.route,
        tags: [...response.tags],
        expiresAt: Date.now() + this.options.ttlSeconds * 1_000,
      };
      this.options.memory.set(key, new MemoryEntry(entry, served.representations));
      this.storeShared(key, entry, readGeneration);
    }
    return served;
  }

  /** A cacheable 200 as a catalog read (encoded once, here); anything else as it is. */
  private encoded({ status, body, headers, cacheable }: ComputedResponse): ServedResponse {
    if (cacheable && status === 200) return { status, representations: this.options.encoder.encode(body) };
    return { status, body, headers };
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
      .catch((error) => this.options.redisFailed('set', error))
      .finally(() => this.pendingWrites.delete(write));
    this.pendingWrites.add(write);
  }

  /** Resolves once every background Redis write started so far has finished (or failed). */
  async settled(): Promise<void> {
    await Promise.all(this.pendingWrites);
  }

  private evict(tags: readonly string[]): void {
    this.epoch += 1;
    this.options.memory.evictTags(tags);
  }

  private forgetEverything(): void {
    this.epoch += 1;
    this.options.memory.clear();
  }
}

const catalogRead = (entry: MemoryEntry): CatalogRead => ({ status: 200, representations: entry.representations });

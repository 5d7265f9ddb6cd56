import type { Logger } from 'pino';
import type { ClockPosition } from '../coherence/clock.js';
import type { Coherence } from '../coherence/coherence.js';
import type { ReadTarget } from '../db/read-targets.js';
import type { CatalogEvents } from '../events/catalog-events.js';
import { tagsOfChange } from '../events/change-tags.js';
import { traceRedisLookup } from '../telemetry/cache-lookups.js';
import type { CacheReport } from './cache-report.js';
import type { CachedRoute } from './cached-routes.js';
import type { CacheEntry } from './entry.js';
import { MemoryEntry, type MemoryStore } from './memory-store.js';
import type { RedisFailureReport } from '../redis/breaker.js';
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

/** Computes a response, reading from `target`. */
export type Computation = (target: ReadTarget) => Promise<ComputedResponse>;

export interface ResponseCacheOptions {
  ttlSeconds: number;
  /** Makes the encodings, ETag and headers of a cacheable body, once per body and replica. */
  encoder: RepresentationEncoder;
  memory: MemoryStore;
  /** The shared cache; absent without Redis. */
  redis?: RedisStore;
  /** Whether what is kept in memory may be trusted now, where reads are in the invalidation history, and what is pending. */
  coherence: Coherence;
  /** Runs a computation on the read target it may use (a replica, or the primary): coherence/replica-reads.ts. */
  readOn: (compute: Computation) => Promise<ComputedResponse>;
  /** What the cache forgets: writes (about to commit, and committed), catalog swaps, missed changes. */
  events: CatalogEvents;
  report: CacheReport;
  logger: Logger;
  redisFailed: RedisFailureReport;
}

/** A computation in flight, shared by the misses on its key that may take what it reads. */
interface Flight {
  /** The in-process store's invalidation count when it began, before its first statement. */
  startedAt: number;
  result: Promise<FlightResult>;
}

interface FlightResult {
  served: ServedResponse;
  tags: readonly string[];
}

/**
 * A computation that began this long ago is not cached: a write's pending marks may have run out
 * meanwhile (coherence/write-announcer.ts), so the check that would refuse it cannot be trusted.
 */
const MAX_COMPUTATION_AGE_MS = 5_000;

/**
 * Whole-response cache: an in-process LRU in front of Redis (when configured). Concurrent misses
 * on one key share one computation, unless one of its tags was invalidated after it began. What it keeps follows the coherence protocol
 * (gateway/README.md, "Consistency"): the in-process copies are served and filled only while this
 * process holds its lease (rule 5); each is stamped with the store's eviction count before its
 * data is read and kept only if none of its tags was evicted since or is pending (rule 7); Redis
 * checks every entry on read and store against the clock (rules 1, 2). It forgets the tags of a
 * write as it is announced and again as it commits, and everything on a swap or missed changes.
 * Redis failures only cost cache hits: they are counted and logged, never passed to clients.
 */
export class ResponseCache {
  private readonly inflight = new Map<string, Flight>();
  private readonly pendingWrites = new Set<Promise<void>>();

  constructor(private readonly options: ResponseCacheOptions) {
    const { events, memory } = options;
    events.on('changing', (change) => memory.evictTags(tagsOfChange(change)));
    events.on('changed', (change) => memory.evictTags(tagsOfChange(change)));
    events.on('swapped', () => memory.clear());
    events.on('missed', () => memory.clear());
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
    return this.enabled && this.options.coherence.leaseHeld ? this.options.memory.get(key) : undefined;
  }

  /**
   * Whether responses are shared with other replicas (through Redis): worth asking after a `peek`
   * missed. Not beside a release of another coherence protocol, whose writes nobody announced here
   * (rule 12). Storing needs no such check: an entry stored beside one is read only once this
   * protocol is alone again, in the new epoch that voids it.
   */
  get shared(): boolean {
    return this.enabled && this.options.redis !== undefined && this.options.coherence.alone;
  }

  /**
   * After the in-process copy missed (counted here): the shared copy, kept in memory on its way
   * (so the next request is a hit). Lets the edge answer what Redis holds without a route; a
   * Redis failure is counted and reads as a miss.
   */
  async sharedEntry(key: string): Promise<MemoryEntry | undefined> {
    const { memory, redis, report, coherence } = this.options;
    report.lookup('memory', 'miss');
    if (!redis || !this.shared) return undefined;
    const readAt = memory.epoch;
    const leaseHeld = coherence.leaseHeld;
    let shared: CacheEntry | undefined;
    try {
      shared = await traceRedisLookup(() => redis.load(key));
    } catch (error) {
      this.options.redisFailed('get', error);
    }
    report.lookup('redis', shared ? 'hit' : 'miss');
    if (!shared) return undefined;
    // Redis holds the body as is, with its ETag: this replica encodes it once, on its way into memory.
    const entry = new MemoryEntry(shared, this.options.encoder.encode(shared.body, shared.etag, shared.tags));
    if (leaseHeld) memory.set(key, entry, readAt);
    return entry;
  }

  /**
   * The response for `key`: from memory, Redis, an identical computation in flight, or `compute`.
   * Cacheable 200s come back as catalog reads, encoded even when the cache is off or cannot keep
   * them (HTTP caches and compression still apply). `key` may be a function making the key, when
   * making it costs something: it is called only when the cache is on.
   */
  async getOrCompute(keyOrMaker: string | (() => string), compute: Computation): Promise<ServedResponse> {
    if (!this.enabled) return this.encoded(await this.options.readOn(compute));
    const key = typeof keyOrMaker === 'string' ? keyOrMaker : keyOrMaker();
    if (!this.inflight.has(key)) {
      const cached = await this.lookup(key);
      if (cached) return cached;
    }
    return this.shareFlight(key, compute);
  }

  /**
   * The response for `key` after memory and Redis both missed it for this request (`sharedEntry`):
   * an identical computation in flight, or `compute`.
   */
  async computeMissed(key: string, compute: Computation): Promise<ServedResponse> {
    if (!this.enabled) return this.encoded(await this.options.readOn(compute));
    return this.shareFlight(key, compute);
  }

  /**
   * Joins the computation of `key` in flight when its answer may be handed to a reader beginning
   * now, else starts one (rule 10): a computation that began before an invalidation of one of its
   * tags read what that write replaced, and a reader that began after the invalidation was heard
   * may have begun after the write was acknowledged. Without the lease nothing says every
   * acknowledged write was heard here, so nothing is joined.
   */
  private async shareFlight(key: string, compute: Computation): Promise<ServedResponse> {
    const { memory, coherence } = this.options;
    const joinedAt = memory.epoch;
    const flight = this.inflight.get(key);
    if (flight && coherence.leaseHeld) {
      const { served, tags } = await flight.result;
      if (joinedAt === flight.startedAt || !memory.invalidatedSince(tags, flight.startedAt)) return served;
    }
    return (await this.startFlight(key, compute).result).served;
  }

  private startFlight(key: string, compute: Computation): Flight {
    const flight: Flight = { startedAt: this.options.memory.epoch, result: this.computeAndStore(key, compute) };
    this.inflight.set(key, flight);
    const landed = () => {
      if (this.inflight.get(key) === flight) this.inflight.delete(key);
    };
    flight.result.then(landed, landed);
    return flight;
  }

  private async lookup(key: string): Promise<ServedResponse | undefined> {
    const local = this.peek(key);
    if (!local) {
      const shared = await this.sharedEntry(key);
      return shared && catalogRead(shared);
    }
    this.options.report.lookup('memory', 'hit');
    return catalogRead(local);
  }

  private async computeAndStore(key: string, compute: Computation): Promise<FlightResult> {
    const { memory, coherence } = this.options;
    // Stamps taken before the first statement (rules 2 and 7).
    const started = performance.now();
    const readAtEpoch = memory.epoch;
    const leaseHeld = coherence.leaseHeld;
    const readAt = coherence.position;
    const response = await this.options.readOn(compute);
    const tags = [...response.tags];
    const served = this.encoded(response, tags);
    if (!('representations' in served) || performance.now() - started > MAX_COMPUTATION_AGE_MS) return { served, tags };
    const entry: CacheEntry = {
      body: response.body,
      etag: served.representations.etag,
      route: response.route,
      tags,
      expiresAt: Date.now() + this.options.ttlSeconds * 1_000,
    };
    if (leaseHeld && !coherence.requirements.anyPending(entry.tags)) {
      memory.set(key, new MemoryEntry(entry, served.representations), readAtEpoch);
    }
    if (readAt) this.storeShared(key, entry, readAt);
    return { served, tags };
  }

  /**
   * A cacheable 200 as a catalog read (encoded once, here, with its tags for the shared caches'
   * surrogate keys); anything else as it is.
   */
  private encoded(response: ComputedResponse, tags?: readonly string[]): ServedResponse {
    const { status, body, headers } = response;
    if (!isCatalogRead(response)) return { status, body, headers };
    return { status: 200, representations: this.options.encoder.encode(body, undefined, tags ?? [...response.tags]) };
  }

  /**
   * Writes to Redis in the background: the client has its answer already, and cold traffic may
   * never read the entry back. Failures are counted like every other Redis failure.
   */
  private storeShared(key: string, entry: CacheEntry, readAt: ClockPosition): void {
    const { redis, report } = this.options;
    if (!redis) return;
    const write = redis
      .store(key, entry, readAt)
      .then((result) => report.sharedStore(result))
      .catch((error) => this.options.redisFailed('set', error))
      .finally(() => this.pendingWrites.delete(write));
    this.pendingWrites.add(write);
  }

  /** Resolves once every background Redis write started so far has finished (or failed). */
  async settled(): Promise<void> {
    await Promise.all(this.pendingWrites);
  }
}

const isCatalogRead = ({ cacheable, status }: ComputedResponse): boolean => cacheable && status === 200;

const catalogRead = (entry: MemoryEntry): CatalogRead => ({ status: 200, representations: entry.representations });

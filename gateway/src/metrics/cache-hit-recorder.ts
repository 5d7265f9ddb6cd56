import type { Counter, Histogram } from 'prom-client';
import type { CachedRoute } from '../cache/cached-routes.js';
import { traceCacheLookup } from '../telemetry/cache-lookups.js';
import { nameRequestRoute } from '../telemetry/request-spans.js';
import { requestSpan } from '../telemetry/tracing.js';
import { observeDuration, requestExemplar, type TraceExemplar } from './exemplars.js';

export type HitMethod = 'GET' | 'HEAD';
/** 304 when the client's copy (If-None-Match) is current. */
export type HitStatus = 200 | 304;

export interface CacheHitLabels {
  method: HitMethod;
  route: CachedRoute;
  status_code: `${HitStatus}`;
}

/** Hits held before they are folded in anyway, so memory stays bounded between scrapes. */
const MAX_PENDING = 4096;

/** A cache lookup's outcome, as catalog_cache_lookups_total labels it. */
export interface CacheLookupLabels {
  backend: 'memory' | 'redis';
  result: 'hit' | 'miss';
}

/**
 * Metrics of requests answered from the cache before any route (by the front door): from memory,
 * or from Redis on its way into memory; and the cache's lookups. A hit only appends its labels and duration, a lookup adds one to a count; the
 * prom-client updates run in one tight loop when the metrics are collected (every scrape) or
 * every MAX_PENDING hits, where they cost a fraction of what they cost one by one between socket
 * writes, and each label set's count is added once. Nothing is lost or late for a scrape:
 * collecting flushes first. Label sets are compared by identity: callers make each once. A traced
 * hit keeps its trace's ids for its duration's exemplar; every lookup and hit in a traced request
 * is also traced (telemetry/cache-lookups.ts).
 */
export class CacheHitRecorder {
  private labels: CacheHitLabels[] = [];
  private seconds: number[] = [];
  /** Exemplars of the traced hits among them, by index. */
  private exemplars = new Map<number, TraceExemplar>();
  /** Of those, answered from memory: each a lookup, counted apart from the rest (the front door's count). */
  private memoryHits = 0;
  /** The other lookups since the last flush, by label set. */
  private lookups = new Map<CacheLookupLabels, number>();

  constructor(
    private readonly metrics: {
      httpRequests: Counter<'method' | 'route' | 'status_code'>;
      httpDuration: Histogram<'method' | 'route' | 'status_code'>;
      cacheLookups: Counter<'backend' | 'result'>;
    },
  ) {}

  record(labels: CacheHitLabels, seconds: number, fromMemory: boolean): void {
    if (fromMemory) this.memoryHits += 1;
    if (requestSpan()) this.exemplars.set(this.labels.length, this.traceHit(labels, fromMemory));
    this.labels.push(labels);
    this.seconds.push(seconds);
    if (this.labels.length >= MAX_PENDING) this.flush();
  }

  countLookup(labels: CacheLookupLabels): void {
    this.lookups.set(labels, (this.lookups.get(labels) ?? 0) + 1);
    traceCacheLookup(labels.backend, labels.result);
  }

  /** A hit in a traced request: its route and (from memory) lookup on the trace; returns its exemplar. */
  private traceHit(labels: CacheHitLabels, fromMemory: boolean): TraceExemplar {
    if (fromMemory) traceCacheLookup('memory', 'hit');
    nameRequestRoute(labels.method, labels.route);
    return requestExemplar()!;
  }

  flush(): void {
    const { labels, seconds, exemplars, memoryHits, lookups } = this;
    // Every scrape collects three metrics, each flushing: the second and third find nothing.
    if (labels.length === 0 && lookups.size === 0) return;
    this.labels = [];
    this.seconds = [];
    if (exemplars.size > 0) this.exemplars = new Map();
    this.memoryHits = 0;
    this.lookups = new Map();
    const { httpRequests, httpDuration, cacheLookups } = this.metrics;
    if (memoryHits > 0) cacheLookups.inc(CACHE_LOOKUPS.memory.hit, memoryHits);
    for (const [lookup, count] of lookups) cacheLookups.inc(lookup, count);
    const requests = new Map<CacheHitLabels, number>();
    for (let index = 0; index < labels.length; index += 1) {
      requests.set(labels[index]!, (requests.get(labels[index]!) ?? 0) + 1);
      observeDuration(httpDuration, labels[index]!, seconds[index]!, exemplars.get(index));
    }
    for (const [request, count] of requests) httpRequests.inc(request, count);
  }
}

/** The cache's lookup outcomes, each label set made once (see `countLookup`). */
export const CACHE_LOOKUPS = {
  memory: { hit: { backend: 'memory', result: 'hit' }, miss: { backend: 'memory', result: 'miss' } },
  redis: { hit: { backend: 'redis', result: 'hit' }, miss: { backend: 'redis', result: 'miss' } },
} as const satisfies Record<CacheLookupLabels['backend'], Record<CacheLookupLabels['result'], CacheLookupLabels>>;

import type { Counter, Histogram } from 'prom-client';
import type { CachedRoute } from '../cache/entry.js';

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

/**
 * Metrics of requests answered from the cache before any route (by the hot lane, or the
 * catalog-cache plugin's hook): from memory, or from Redis on its way into memory. A hit only
 * appends its labels and duration; the prom-client updates run in one tight loop when the metrics are
 * collected (every scrape) or every MAX_PENDING hits, where they cost a fraction of what they
 * cost one by one between socket writes. Nothing is lost or late for a scrape: collecting
 * flushes first.
 */
export class CacheHitRecorder {
  private labels: CacheHitLabels[] = [];
  private seconds: number[] = [];
  /** Of those, answered from memory (a Redis answer's lookups are counted as they happen). */
  private memoryHits = 0;

  constructor(
    private readonly metrics: {
      httpRequests: Counter<'method' | 'route' | 'status_code'>;
      httpDuration: Histogram<'method' | 'route' | 'status_code'>;
      cacheLookups: Counter<'backend' | 'result'>;
    },
  ) {}

  record(labels: CacheHitLabels, seconds: number, fromMemory: boolean): void {
    if (fromMemory) this.memoryHits += 1;
    this.labels.push(labels);
    this.seconds.push(seconds);
    if (this.labels.length >= MAX_PENDING) this.flush();
  }

  flush(): void {
    const { labels, seconds, memoryHits } = this;
    if (labels.length === 0) return;
    this.labels = [];
    this.seconds = [];
    this.memoryHits = 0;
    const { httpRequests, httpDuration, cacheLookups } = this.metrics;
    if (memoryHits > 0) cacheLookups.inc(MEMORY_HIT, memoryHits);
    for (let index = 0; index < labels.length; index += 1) {
      httpRequests.inc(labels[index]!);
      httpDuration.observe(labels[index]!, seconds[index]!);
    }
  }
}

const MEMORY_HIT = { backend: 'memory', result: 'hit' } as const;

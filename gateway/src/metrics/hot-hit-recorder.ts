import type { Counter, Histogram } from 'prom-client';
import type { CachedRoute } from '../cache/entry.js';

export type HitMethod = 'GET' | 'HEAD';
/** 304 when the client's copy (If-None-Match) is current. */
export type HitStatus = 200 | 304;

export interface HotHitLabels {
  method: HitMethod;
  route: CachedRoute;
  status_code: `${HitStatus}`;
}

/** Hits held before they are folded in anyway, so memory stays bounded between scrapes. */
const MAX_PENDING = 4096;

/**
 * Metrics of requests answered from the in-process cache (by the catalog-cache plugin's hook or
 * the hot lane). A hit only appends its
 * labels and duration; the prom-client updates run in one tight loop when the metrics are
 * collected (every scrape) or every MAX_PENDING hits, where they cost a fraction of what they
 * cost one by one between socket writes. Nothing is lost or late for a scrape: collecting
 * flushes first.
 */
export class HotHitRecorder {
  private labels: HotHitLabels[] = [];
  private seconds: number[] = [];

  constructor(
    private readonly metrics: {
      httpRequests: Counter<'method' | 'route' | 'status_code'>;
      httpDuration: Histogram<'method' | 'route' | 'status_code'>;
      cacheLookups: Counter<'backend' | 'result'>;
    },
  ) {}

  record(labels: HotHitLabels, seconds: number): void {
    this.labels.push(labels);
    this.seconds.push(seconds);
    if (this.labels.length >= MAX_PENDING) this.flush();
  }

  flush(): void {
    const { labels, seconds } = this;
    if (labels.length === 0) return;
    this.labels = [];
    this.seconds = [];
    const { httpRequests, httpDuration, cacheLookups } = this.metrics;
    // Every hot hit is a hit of the in-process cache too.
    cacheLookups.inc(MEMORY_HIT, labels.length);
    for (let index = 0; index < labels.length; index += 1) {
      httpRequests.inc(labels[index]!);
      httpDuration.observe(labels[index]!, seconds[index]!);
    }
  }
}

const MEMORY_HIT = { backend: 'memory', result: 'hit' } as const;

import { scrapeMetrics, type HasMetricsUrl } from '../../scripts/test/metrics.js';

/**
 * The gateway's own account of its response cache (catalog_cache_lookups_total from /metrics),
 * read before and after a workload: it tells how much of the hot mix the in-process LRU served
 * and how much fell through to Redis.
 */
export type CacheLookups = Record<string, number>;

const LOOKUP_LINE = /^catalog_cache_lookups_total\{([^}]*)\} (\S+)$/;

export async function readCacheLookups(gateway: HasMetricsUrl): Promise<CacheLookups> {
  const text = await scrapeMetrics(gateway);
  const lookups: CacheLookups = {};
  for (const line of text.split('\n')) {
    const match = LOOKUP_LINE.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name, value]));
    lookups[`${labels.backend}_${labels.result}`] = Number(match[2]);
  }
  return lookups;
}

export interface CacheShare {
  memoryHitRatio: number;
  /** Of the lookups the in-process LRU missed, the share Redis answered. */
  redisHitRatio: number;
  lookups: CacheLookups;
}

export function cacheShare(before: CacheLookups, after: CacheLookups): CacheShare {
  const delta = (key: string) => (after[key] ?? 0) - (before[key] ?? 0);
  const lookups = Object.fromEntries(Object.keys(after).map((key) => [key, delta(key)]));
  const ratio = (hit: string, miss: string) => delta(hit) / Math.max(1, delta(hit) + delta(miss));
  return {
    memoryHitRatio: ratio('memory_hit', 'memory_miss'),
    redisHitRatio: ratio('redis_hit', 'redis_miss'),
    lookups,
  };
}

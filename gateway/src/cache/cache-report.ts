import type { SharedStoreResult } from './redis-store.js';

/** What the response cache reports (metrics/metrics.ts counts it). */
export interface CacheReport {
  /** A lookup of one tier and its outcome. */
  lookup(backend: 'memory' | 'redis', result: 'hit' | 'miss'): void;
  /** A response offered to Redis, and what Redis did with it. */
  sharedStore(result: SharedStoreResult): void;
}

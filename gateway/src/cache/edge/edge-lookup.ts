import type { IncomingMessage } from 'node:http';
import { LRUCache } from 'lru-cache';
import { isRestCacheKey } from '../keys.js';
import type { MemoryEntry } from '../memory-store.js';
import type { ResponseCache } from '../response-cache.js';

/** Request URLs known to name the same response as a canonical cache key (`/products` is `/products?page=1&count=5`). */
const MOST_ALIASES = 10_000;

/** The cache key a request's URL was looked up under at the edge (memory and Redis both missed). */
const LOOKED_UP = Symbol('catalog cache key looked up at the edge');
type LookedUpRequest = IncomingMessage & { [LOOKED_UP]?: string };

/**
 * Which cached response answers a GET or HEAD before any route runs, by its URL as the client
 * sent it: a canonical URL is its own cache key; any other valid spelling of one (parameters
 * reordered, defaults left out) is an alias its route recorded when it answered it first. Junk
 * (unknown parameters, bad values) is refused by the route, so it never becomes an alias or a key.
 */
export class EdgeLookup {
  private readonly aliases = new LRUCache<string, string>({ max: MOST_ALIASES });

  constructor(readonly cache: ResponseCache) {}

  /** The in-process entry answering a GET or HEAD, if any. */
  memoryEntry(request: Pick<IncomingMessage, 'method' | 'url'>): MemoryEntry | undefined {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !request.url) return undefined;
    const entry = this.cache.peek(request.url);
    if (entry || this.aliases.size === 0) return entry;
    const key = this.aliases.get(request.url);
    return key === undefined ? undefined : this.cache.peek(key);
  }

  /**
   * Whether Redis may hold the answer to a request the in-process cache missed: a GET or HEAD whose
   * URL is a REST cache key, or an alias of one.
   */
  mayBeShared(request: IncomingMessage): boolean {
    if (!this.cache.shared || (request.method !== 'GET' && request.method !== 'HEAD')) return false;
    return isRestCacheKey(this.aliases.get(request.url!) ?? request.url!);
  }

  /**
   * Redis's entry for such a request, kept in memory on its way; a miss is remembered on the
   * request, so that its route computes the answer without asking Redis again.
   */
  sharedEntry(request: IncomingMessage): Promise<MemoryEntry | undefined> {
    const key = this.aliases.get(request.url!) ?? request.url!;
    (request as LookedUpRequest)[LOOKED_UP] = key;
    return this.cache.sharedEntry(key);
  }

  /** Whether `key` was looked up (and missed) at the edge for this very request. */
  static wasLookedUp(request: IncomingMessage, key: string): boolean {
    return (request as LookedUpRequest)[LOOKED_UP] === key;
  }

  /** Records that a request URL names the response cached under `key`. */
  alias(url: string, key: string): void {
    if (url !== key) this.aliases.set(url, key);
  }
}

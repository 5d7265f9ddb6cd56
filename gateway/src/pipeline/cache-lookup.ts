import type { IncomingMessage } from 'node:http';
import type { OperationDefinitionNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { isRestCacheKey } from '../cache/keys.js';
import type { MemoryEntry } from '../cache/memory-store.js';
import type { Computation, ResponseCache, ServedResponse } from '../cache/response-cache.js';
import type { RequestRecord } from './request-record.js';

/** Request URLs known to name the same response as a canonical cache key (`/products` is `/products?page=1&count=5`). */
const MOST_ALIASES = 10_000;

/** What a GraphQL GET's URL names besides its cache key: what answering it takes besides the bytes. */
export interface GraphqlOperationRef {
  /** The cost its client is charged for it (undefined: not costable, nothing charged). */
  readonly cost: number | undefined;
  /** The operation, for its metrics. */
  readonly operation: OperationDefinitionNode;
}

interface Alias {
  readonly key: string;
  /** Undefined for a REST URL. */
  readonly graphql: GraphqlOperationRef | undefined;
}

/**
 * The look-up stage: which cached response answers a GET or HEAD before any route runs, by its
 * URL as the client sent it. A canonical REST URL is its own cache key; any other URL (another
 * spelling of a REST one, a GraphQL GET) is an alias its route recorded when it answered it
 * first. Junk (unknown parameters, bad values) is refused by the route, so it never becomes an
 * alias or a key. A key both memory and Redis missed is noted on the request's record, so its
 * route computes the answer without asking again.
 */
export class CacheLookup {
  private readonly aliases = new LRUCache<string, Alias>({ max: MOST_ALIASES });

  constructor(readonly cache: ResponseCache) {}

  /** The in-process entry answering a GET or HEAD, if any. */
  memoryEntry(request: Pick<IncomingMessage, 'method' | 'url'>): MemoryEntry | undefined {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || !request.url) return undefined;
    const entry = this.cache.peek(request.url);
    if (entry || this.aliases.size === 0) return entry;
    const alias = this.aliases.get(request.url);
    return alias === undefined ? undefined : this.cache.peek(alias.key);
  }

  /**
   * The cache key Redis may hold the answer to a request under, after the in-process cache
   * missed: a GET's or HEAD's URL that is a REST cache key, or an alias of any key.
   */
  sharedKey(request: IncomingMessage): string | undefined {
    if (!this.cache.shared || (request.method !== 'GET' && request.method !== 'HEAD')) return undefined;
    const alias = this.aliases.get(request.url!);
    if (alias !== undefined) return alias.key;
    return isRestCacheKey(request.url!) ? request.url : undefined;
  }

  /** Redis's entry under `key`, kept in memory on its way; a miss is noted on the record. */
  async sharedEntry(record: RequestRecord, key: string): Promise<MemoryEntry | undefined> {
    const entry = await this.cache.sharedEntry(key);
    if (!entry) record.missedKey = key;
    return entry;
  }

  /**
   * A route's answer under `key`: from the cache, unless this request's look-up missed that very
   * key already, or computed (memory and Redis are not asked twice for one request).
   */
  getOrCompute(record: RequestRecord, key: string | (() => string), compute: Computation): Promise<ServedResponse> {
    if (record.missedKey === undefined) return this.cache.getOrCompute(key, compute);
    const made = typeof key === 'string' ? key : key();
    return record.missedKey === made ? this.cache.computeMissed(made, compute) : this.cache.getOrCompute(made, compute);
  }

  /** What a GraphQL GET's URL the route answered names (an entry found under it is a GraphQL answer). */
  graphqlOf(url: string): GraphqlOperationRef | undefined {
    return this.aliases.get(url)?.graphql;
  }

  /** Records that a request URL names the response cached under `key` (with, for a GraphQL GET, its operation). */
  alias(url: string, key: string, graphql?: GraphqlOperationRef): void {
    if (url !== key) this.aliases.set(url, { key, graphql });
  }
}

import { hash } from 'node:crypto';

/**
 * REST GETs are keyed by their exact path and query string, as is: paths start with "/", so
 * they never meet the "gql:" keys, and the hot lane looks them up without building a string.
 */
export const restCacheKey = (url: string): string => url;

/** GraphQL queries are keyed by document, operation and variables. */
export function graphqlCacheKey(query: string, operationName: unknown, variables: unknown): string {
  return `gql:${hash('sha256', JSON.stringify([query, operationName ?? null, variables ?? null]), 'base64url')}`;
}

/**
 * Redis key of a response: hashed so arbitrary URLs make bounded keys. It names the entry format
 * (`entry.ts`, 2: with its ETag), so replicas of two versions, side by side in a rolling update,
 * never read each other's entries.
 */
export const redisResponseKey = (key: string): string => `catalog:response:2:${hash('sha1', key, 'base64url')}`;

export const redisTagKey = (tag: string): string => `catalog:tag:${tag}`;

/** The invalidation generation at which a tag was last invalidated. */
export const redisTagVersionKey = (tag: string): string => `catalog:tagver:${tag}`;

/** A persisted query's text by its SHA-256; not swept with responses: a query outlives catalogs. */
export const redisPersistedQueryKey = (sha256Hash: string): string => `catalog:apq:${sha256Hash}`;

/** Every response and tag key, for a sweep after a new catalog is swapped in. */
export const REDIS_KEY_PATTERNS = ['catalog:response:*', 'catalog:tag:*'] as const;

/** Claimed by the one replica that sweeps Redis after a given catalog swap. */
export const redisSweepKey = (swapId: string): string => `catalog:swept:${swapId}`;

import { hash } from 'node:crypto';
import { isLegacyList, type ProductListQuery } from '../paging/product-list-query.js';
import { CACHED_ROUTES } from './cached-routes.js';

/**
 * A REST GET's cache key: its path, then the query parameters that decide its answer, in the
 * order the route lists them, each in one spelling (defaults spelt out, values as parsed), so
 * that parameter order, defaults and spelling never make new keys. Written as a URL: a client
 * sending exactly this URL is answered at the front door without a route (pipeline/cache-lookup.ts).
 */
export function restCacheKey(
  path: string,
  parameters: ReadonlyArray<readonly [name: string, value: string | number | undefined]> = [],
): string {
  const query = parameters
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`)
    .join('&');
  return query === '' ? path : `${path}?${query}`;
}

/**
 * A REST list's cache key, from its canonical query (paging/product-list-query.ts): the legacy
 * request as clients send it (`/products?page=1&count=5`), a filtered or sorted one with its sort
 * and filter in canonical form.
 */
export function listCacheKey({ page, count, sort, filter }: ProductListQuery): string {
  const legacy = isLegacyList({ page, count, sort, filter });
  return restCacheKey('/products', [
    ['page', page],
    ['count', count],
    ['sort', legacy ? undefined : sort],
    ['filter', legacy ? undefined : JSON.stringify(filter)],
  ]);
}

/**
 * Every REST cache key as `restCacheKey` and `listCacheKey` write them, from the cached routes:
 * a product route's path with a parsed id, or the list's page, count and, when filtered or
 * sorted, its sort and filter. The edge asks Redis only for such URLs (or their aliases): a URL
 * with anything else in it cannot be a key, so junk costs Redis nothing.
 */
const REST_CACHE_KEY = new RegExp(
  `^(?:${CACHED_ROUTES.filter((route) => route.includes(':'))
    .map((route) => route.replace(/:\w+/g, '\\d+'))
    .join('|')}|/products\\?page=\\d+&count=\\d+(?:&sort=\\w+&filter=[^&#]*)?)$`,
);

export const isRestCacheKey = (url: string): boolean => REST_CACHE_KEY.test(url);

/**
 * A GraphQL query's cache key: what decides its answer (graphql/documents.ts `whatDecides`: the
 * operation as it runs and its declared variables, coerced), hashed; object keys are sorted so
 * that the order a client lists variables in makes no new key.
 */
export function graphqlCacheKey(decides: { operation: string; variables: unknown }): string {
  return `gql:${hash('sha256', `${decides.operation}\n${canonicalJson(decides.variables)}`, 'base64url')}`;
}

/** JSON with every object's keys in sorted order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/**
 * The routes whose responses are cached, by their route pattern: a cached response names its
 * route, and a hit is labelled with it in the request metrics.
 */
export const CACHED_ROUTES = [
  '/products',
  '/products/:product_id',
  '/products/:product_id/styles',
  '/products/:product_id/related',
  '/graphql',
] as const;
export type CachedRoute = (typeof CACHED_ROUTES)[number];

export const isCachedRoute = (text: string): text is CachedRoute => (CACHED_ROUTES as readonly string[]).includes(text);

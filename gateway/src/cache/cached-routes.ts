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

/** The REST routes among them, each as a pattern over a request's path (a parameter is one path segment). */
const CACHED_REST_PATHS: readonly RegExp[] = CACHED_ROUTES.filter((route) => route !== '/graphql').map(
  (route) => new RegExp(`^${route.replace(/:\w+/g, '[^/?#]+')}(?:\\?|$)`),
);

/** Whether a request URL (path and query) is one of the cached REST routes': worth asking Redis for. */
export const isCachedRestUrl = (url: string): boolean => CACHED_REST_PATHS.some((path) => path.test(url));

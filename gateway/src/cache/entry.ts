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

const isCachedRoute = (text: string): text is CachedRoute => (CACHED_ROUTES as readonly string[]).includes(text);

/** A cached 200 response: its bytes, the route it answers, what it was built from, and when it stops being valid. */
export interface CacheEntry {
  body: string;
  /** The body's ETag, kept with it: a replica taking the response from Redis hashes nothing. */
  etag: string;
  route: CachedRoute;
  tags: string[];
  expiresAt: number;
}

/** A strong ETag as the encoder makes them (a quoted base64url digest). */
const ETAG = /^"[\w-]+"$/;

// One line per header field, then the body: cheap to write and to split, no double JSON encoding.
export function encodeEntry(entry: CacheEntry): string {
  return `${entry.expiresAt}\n${entry.etag}\n${entry.tags.join(' ')}\n${entry.route}\n${entry.body}`;
}

/** The entry, or undefined when the text is not one (cut short, or of a route this version does not cache). */
export function decodeEntry(text: string): CacheEntry | undefined {
  const first = text.indexOf('\n');
  const second = text.indexOf('\n', first + 1);
  const third = text.indexOf('\n', second + 1);
  const fourth = text.indexOf('\n', third + 1);
  if (first < 0 || second < 0 || third < 0 || fourth < 0) return undefined;
  const etag = text.slice(first + 1, second);
  const route = text.slice(third + 1, fourth);
  if (!ETAG.test(etag) || !isCachedRoute(route)) return undefined;
  const tags = text.slice(second + 1, third);
  return {
    expiresAt: Number(text.slice(0, first)),
    etag,
    tags: tags === '' ? [] : tags.split(' '),
    route,
    body: text.slice(fourth + 1),
  };
}

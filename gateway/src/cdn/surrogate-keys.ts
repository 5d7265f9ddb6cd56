import type { OutgoingHttpHeader } from 'node:http';

/**
 * The tag every catalog read carries besides its own: a purge of it is a purge of everything the
 * gateway answered (a catalog swap, an overflowing purge queue), and of nothing else the shared
 * cache holds for the same site, which a CDN's purge-everything would also throw away.
 */
export const EVERY_CATALOG_READ_TAG = 'catalog';

/** The response headers shared caches read tags from; undefined leaves one out (EDGE_*_HEADER=none). */
export interface SurrogateHeaderNames {
  /** Space-separated: Fastly's `Surrogate-Key`, Varnish xkey. */
  spaceSeparated: string | undefined;
  /** Comma-separated: Cloudflare's `Cache-Tag`, Akamai's `Edge-Cache-Tag`. */
  commaSeparated: string | undefined;
}

/**
 * The surrogate-key headers of one catalog read, as a flat [name, value, …] list made once when
 * its body is encoded (kept with the cached entry, shared by its encodings), so a hit copies two
 * strings instead of joining its tags again. The response cache's own tags, spelt the same way,
 * so a change purges the shared caches by the very words it evicts the gateway's caches by.
 */
export function surrogateKeyHeaders(names: SurrogateHeaderNames, tags: readonly string[]): readonly OutgoingHttpHeader[] {
  const headers: OutgoingHttpHeader[] = [];
  if (names.spaceSeparated) headers.push(names.spaceSeparated, spelt(tags, ' '));
  if (names.commaSeparated) headers.push(names.commaSeparated, spelt(tags, ','));
  return headers;
}

const spelt = (tags: readonly string[], separator: string): string =>
  tags.length === 0 ? EVERY_CATALOG_READ_TAG : `${EVERY_CATALOG_READ_TAG}${separator}${tags.join(separator)}`;

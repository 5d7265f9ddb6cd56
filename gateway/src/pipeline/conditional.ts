/** An entity tag in an If-None-Match list: optionally weak (`W/`), then a quoted opaque tag. */
const ENTITY_TAG = /(?:W\/)?"[^"]*"/g;

/**
 * Whether an If-None-Match header names the current representation (`etag`, a strong tag), so
 * a GET or HEAD is answered 304: `*`, or a list of tags compared weakly, i.e. `W/"x"` matches
 * `"x"` (RFC 9110 §13.1.2).
 */
export function ifNoneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  // What a browser sends back: the one tag it was given.
  if (header === etag) return true;
  if (header.trim() === '*') return true;
  for (const [tag] of header.matchAll(ENTITY_TAG)) {
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

import type { ClockPosition } from '../coherence/clock.js';
import { ENTRY_HEADER_LINES, ENTRY_TAGS_LINE } from '../redis/scripts/response-store.js';
import { isCachedRoute, type CachedRoute } from './cached-routes.js';

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

// One line per header field (ENTRY_HEADER_LINES of them: the epoch and seq at which the response's
// data was read, which the coherence scripts check against the clock and the tags' versions, then
// expiry, ETag, route and tags; the scripts read the first two and the tags line: keep them in
// place), then the body: cheap to write and to split, no double JSON encoding.
export function encodeEntry(entry: CacheEntry, readAt: ClockPosition): string {
  return `${readAt.epoch}\n${readAt.seq}\n${entry.expiresAt}\n${entry.etag}\n${entry.route}\n${entry.tags.join(' ')}\n${entry.body}`;
}

/** An entry as Redis holds it: with the position its data was read at. */
export interface StoredEntry {
  entry: CacheEntry;
  readAt: ClockPosition;
}

/** The entry, or undefined when the text is not one (cut short, or of a route this version does not cache). */
export function decodeEntry(text: string): StoredEntry | undefined {
  const ends: number[] = [];
  for (let from = 0; ends.length < ENTRY_HEADER_LINES; from = ends.at(-1)! + 1) {
    const end = text.indexOf('\n', from);
    if (end < 0) return undefined;
    ends.push(end);
  }
  const field = (line: number) => text.slice(line === 1 ? 0 : ends[line - 2]! + 1, ends[line - 1]);
  const etag = field(4);
  const route = field(5);
  const readSeq = Number(field(2));
  if (!ETAG.test(etag) || !isCachedRoute(route) || !Number.isSafeInteger(readSeq)) return undefined;
  const tags = field(ENTRY_TAGS_LINE);
  return {
    entry: {
      expiresAt: Number(field(3)),
      etag,
      route,
      tags: tags === '' ? [] : tags.split(' '),
      body: text.slice(ends[ENTRY_HEADER_LINES - 1]! + 1),
    },
    readAt: { epoch: field(1), seq: readSeq },
  };
}

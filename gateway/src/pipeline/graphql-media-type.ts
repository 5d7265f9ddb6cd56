import type { OutgoingHttpHeader } from 'node:http';
import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';
import { JSON_CONTENT_TYPE } from '../http/media-types.js';

// The media types Apollo answers a single result in, in its order (chooseContentTypeForSingleResultResponse).
const SINGLE_RESULT_MEDIA_TYPES = [
  JSON_CONTENT_TYPE,
  'application/graphql-response+json; charset=utf-8',
  'application/json; callbackSpec=1.0; charset=utf-8',
];
/** Clients send a handful of distinct Accept values: each is negotiated once ('' when none is acceptable). */
const mediaTypeByAccept = new LRUCache<string, string>({ max: 256 });

/**
 * The media type a GraphQL result is answered in for this Accept header, as Apollo chooses it:
 * `application/json` without one; undefined when none is acceptable (Apollo answers 406).
 */
function singleResultMediaType(accept: string | undefined): string | undefined {
  if (!accept) return JSON_CONTENT_TYPE;
  let mediaType = mediaTypeByAccept.get(accept);
  if (mediaType === undefined) {
    mediaType = new Negotiator({ headers: { accept } }).mediaType(SINGLE_RESULT_MEDIA_TYPES) ?? '';
    mediaTypeByAccept.set(accept, mediaType);
  }
  return mediaType || undefined;
}

/**
 * GraphQL over HTTP: a client that prefers `application/graphql-response+json` gets its answer
 * labelled so, whoever made the body (Apollo, or the response cache, which keeps one body for
 * every client and labels it `application/json`). The body is the same in either media type, so
 * it keeps its ETag; `Vary: Accept` tells shared caches the label depends on it.
 */
export function labelForAccept(headers: OutgoingHttpHeader[], accept: string | undefined): void {
  const mediaType = singleResultMediaType(accept);
  let varied = false;
  for (let index = 0; index < headers.length; index += 2) {
    if (headers[index] === 'content-type' && mediaType !== undefined && headers[index + 1] === JSON_CONTENT_TYPE)
      headers[index + 1] = mediaType;
    else if (headers[index] === 'vary') {
      headers[index + 1] = `${String(headers[index + 1])}, accept`;
      varied = true;
    }
  }
  if (!varied) headers.push('vary', 'accept');
}

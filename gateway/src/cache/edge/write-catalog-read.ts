import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import { RATELIMIT_FIELD } from '../../limits/ratelimit-fields.js';
import type { Representations } from '../representations.js';
import { ifNoneMatchHolds } from './conditional.js';

/** Adds the headers every answer to this request carries besides the representation's own (request id, CORS, …). */
export type FinishHeaders = (headers: OutgoingHttpHeader[]) => OutgoingHttpHeader[];

/**
 * Writes a catalog read, wherever it comes from (the in-process cache, Redis, or just computed):
 * in the encoding the client accepts, with its ETag and cache headers; a 304 without a body when
 * a GET's or HEAD's If-None-Match names that representation (another method's met condition
 * would be a 412, so it gets the 200). A HEAD gets the GET's headers: Node writes no body for it.
 * Returns the status written.
 */
export function writeCatalogRead(
  request: Pick<IncomingMessage, 'method' | 'headers'>,
  response: ServerResponse,
  representations: Representations,
  finish: FinishHeaders,
): 200 | 304 {
  const representation = representations.negotiate(request.headers['accept-encoding']);
  const conditional = request.method === 'GET' || request.method === 'HEAD';
  const personalised = response.hasHeader(RATELIMIT_FIELD);
  if (conditional && ifNoneMatchHolds(request.headers['if-none-match'], representation.etag)) {
    response.writeHead(304, finish(representation.notModifiedHeaders(personalised)));
    response.end();
    return 304;
  }
  response.writeHead(200, finish(representation.headers(personalised)));
  response.end(representation.body);
  return 200;
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { JSON_CONTENT_TYPE, type HeaderList } from '../cache/representations.js';
import type { ServedResponse } from '../cache/response-cache.js';
import { ifNoneMatchHolds } from './etags.js';

/**
 * Sends what a route got from the response cache: a catalog read in the encoding the client
 * accepts, with its ETag and cache headers (a 304 without a body when a GET's or HEAD's
 * If-None-Match names it), anything else as it is. Fastify answers a HEAD with the GET's headers.
 */
export function sendServed(request: FastifyRequest, reply: FastifyReply, served: ServedResponse): FastifyReply {
  if (!('representations' in served)) {
    for (const [name, value] of served.headers ?? []) reply.header(name, value);
    return reply.code(served.status).type(JSON_CONTENT_TYPE).send(served.body);
  }
  const representation = served.representations.negotiate(request.headers['accept-encoding']);
  // A 304 answers a conditional GET or HEAD only (another method's met If-None-Match would be a 412).
  const conditional = request.method === 'GET' || request.method === 'HEAD';
  if (conditional && ifNoneMatchHolds(request.headers['if-none-match'], representation.etag)) {
    return withHeaders(reply, representation.notModifiedHeaders()).code(304).send();
  }
  return withHeaders(reply, representation.headers()).code(200).send(representation.body);
}

/** Sets `headers`, adding to a Vary set earlier (CORS varies by Origin) instead of replacing it. */
function withHeaders(reply: FastifyReply, headers: HeaderList): FastifyReply {
  const earlierVary = reply.getHeader('vary');
  for (let index = 0; index < headers.length; index += 2) {
    const name = String(headers[index]);
    const value = headers[index + 1];
    reply.header(name, name === 'vary' && earlierVary ? `${String(earlierVary)}, ${String(value)}` : value);
  }
  return reply;
}

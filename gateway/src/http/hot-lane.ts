import { createServer, type RequestListener, type Server } from 'node:http';
import type { CacheHits } from '../plugins/catalog-cache.js';
import { addCommonHeaders, type Lifecycle } from './common-headers.js';
import type { RequestIdOf } from './request-ids.js';

/**
 * The HTTP server, with a shortcut in front of Fastify for GETs the in-process cache answers
 * (hot catalog traffic). It does what the catalog-cache plugin's hook and Fastify's hooks do for
 * such a request, through the very same functions (entry, headers, request id, drain, metrics,
 * log line), minus Fastify's per-request objects and hook chain. Everything else goes to Fastify.
 */
export function createServerWithHotLane(hits: CacheHits, requestIdOf: RequestIdOf, lifecycle: Lifecycle) {
  return (fastifyHandler: RequestListener): Server =>
    createServer((request, response) => {
      const entry = hits.entryFor(request);
      if (!entry) return fastifyHandler(request, response);
      const started = performance.now();
      const requestId = requestIdOf(request);
      response.writeHead(200, addCommonHeaders(hits.headersFor(entry), requestId, lifecycle));
      response.end(entry.bytes);
      hits.account(entry, requestId, request.url!, performance.now() - started);
    });
}

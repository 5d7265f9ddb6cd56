import { createServer, type RequestListener, type Server } from 'node:http';
import type { CacheHits } from '../plugins/catalog-cache.js';
import type { RequestIdOf } from './request-ids.js';

/**
 * The HTTP server, with a shortcut in front of Fastify for GETs the in-process cache answers
 * (hot catalog traffic). It does what the catalog-cache plugin's hook does for such a request,
 * through the very same functions (entry, response with its headers, request id, metrics, log
 * line), minus Fastify's routing, per-request objects and hook chain. Everything else goes to Fastify.
 */
export function createServerWithHotLane(hits: CacheHits, requestIdOf: RequestIdOf) {
  return (fastifyHandler: RequestListener): Server =>
    createServer((request, response) => {
      const entry = hits.entryFor(request);
      if (!entry) return fastifyHandler(request, response);
      const started = performance.now();
      const requestId = requestIdOf(request);
      hits.serve(response, entry, requestId, request.headers.origin);
      hits.account(entry, requestId, request.url!, performance.now() - started);
    });
}

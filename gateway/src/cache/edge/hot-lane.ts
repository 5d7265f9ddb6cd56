import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { RequestIdOf } from '../../http/request-ids.js';
import type { ClientLimits } from '../../limits/client-limits.js';
import type { EdgeLookup } from './edge-lookup.js';
import type { EdgeResponder } from './edge-responder.js';

/**
 * The HTTP server, with the cache's edge in front of Fastify: a GET the cache answers is written
 * from the in-process copy at once (hot catalog traffic), else from Redis's copy of a cached REST
 * path (the long tail other replicas or earlier requests made), without Fastify's routing,
 * per-request objects and hook chain. Everything else goes to Fastify; a request Redis missed is
 * marked (EdgeLookup), so its route does not ask Redis again.
 */
export function createServerWithHotLane(
  lookup: EdgeLookup,
  responder: EdgeResponder,
  requestIdOf: RequestIdOf,
  limits: ClientLimits,
  options: ServerOptions,
) {
  return (fastifyHandler: RequestListener): Server =>
    createServer(options, (request: IncomingMessage, response: ServerResponse) => {
      const started = performance.now();
      // The client limits count each request once: here the ones this lane answers or looks up in
      // Redis (before the lookup: a client over its limit costs no round trip), in Fastify's hook the rest.
      const entry = lookup.memoryEntry(request);
      if (entry) {
        if (limits.admit(request, response)) responder.answer(request, response, entry, 'memory', requestIdOf(request), started);
        return;
      }
      if (!lookup.mayBeShared(request)) return fastifyHandler(request, response);
      if (!limits.admit(request, response)) return;
      const route = () => {
        limits.handOn(request);
        fastifyHandler(request, response);
      };
      lookup.sharedEntry(request).then(
        (shared) => (shared ? responder.answer(request, response, shared, 'shared', requestIdOf(request), started) : route()),
        // Redis failures read as misses (ResponseCache.sharedEntry); anything else is the route's to report.
        route,
      );
    });
}

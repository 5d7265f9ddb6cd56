import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { MemoryEntry } from '../cache/memory-store.js';
import type { ClientLimits } from '../limits/client-limits.js';
import type { HitMethod } from '../metrics/cache-hit-recorder.js';
import type { CacheHits, HitSource } from '../plugins/catalog-cache.js';
import type { RequestIdOf } from './request-ids.js';

/**
 * The HTTP server, with a shortcut in front of Fastify for GETs the cache answers: the
 * in-process copy at once (hot catalog traffic), else Redis's copy of a cached REST path (the
 * long tail other replicas or earlier requests made). It does what the catalog-cache plugin's
 * hook does for such a request, through the very same functions (entry, response with its
 * headers, request id, metrics, log line), minus Fastify's routing, per-request objects and hook
 * chain. Everything else goes to Fastify; a request Redis missed goes with a mark, so its route
 * does not ask Redis again.
 */
export function createServerWithHotLane(hits: CacheHits, requestIdOf: RequestIdOf, limits: ClientLimits) {
  return (fastifyHandler: RequestListener): Server => {
    const answer = (request: IncomingMessage, response: ServerResponse, entry: MemoryEntry, source: HitSource, started: number) => {
      const requestId = requestIdOf(request);
      const status = hits.serve(request, response, entry, requestId);
      hits.account(entry, source, request.method as HitMethod, status, requestId, request.url!, performance.now() - started);
    };
    return createServer((request, response) => {
      const started = performance.now();
      if (!limits.admit(request, response)) return;
      const entry = hits.entryFor(request);
      if (entry) return answer(request, response, entry, 'memory', started);
      if (!hits.mayBeShared(request)) return fastifyHandler(request, response);
      hits.sharedEntryFor(request).then(
        (shared) => (shared ? answer(request, response, shared, 'shared', started) : fastifyHandler(request, response)),
        // Redis failures read as misses (sharedEntry); anything else is the route's to report.
        () => fastifyHandler(request, response),
      );
    });
  };
}

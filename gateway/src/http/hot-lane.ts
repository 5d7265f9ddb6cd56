import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { restCacheKey } from '../cache/keys.js';
import type { MemoryEntry } from '../cache/memory-store.js';
import type { ResponseCache } from '../cache/response-cache.js';
import type { HotHitLabels } from '../metrics/hot-hit-recorder.js';
import type { Metrics } from '../metrics/metrics.js';

export interface Lifecycle {
  /** Set when the server starts draining: responses then ask clients to close the connection. */
  closing: boolean;
}

/**
 * The HTTP server, with a fast lane in front of Fastify: a GET whose exact response is in the
 * in-process cache is written straight back (hot catalog traffic), with the same request id
 * header and metrics Fastify's path gives it. Everything else goes to Fastify.
 */
export function createServerWithHotLane(
  cache: ResponseCache,
  metrics: Metrics,
  logger: Logger,
  lifecycle: Lifecycle,
  nextRequestId: () => string,
) {
  // One label set per route, made once: hits allocate nothing for their metrics.
  const labelsByRoute = new Map<string, HotHitLabels>();
  const labelsFor = (route: string) => {
    let labels = labelsByRoute.get(route);
    if (!labels) labelsByRoute.set(route, (labels = { method: 'GET', route, status_code: '200' }));
    return labels;
  };

  const serveHit = (request: IncomingMessage, response: ServerResponse, hit: MemoryEntry) => {
    const started = performance.now();
    const requestId = (request.headers['x-request-id'] as string | undefined) ?? nextRequestId();
    const bytes = hit.bytes;
    const headers: Record<string, string | number> = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': bytes.length,
      'x-request-id': requestId,
    };
    if (lifecycle.closing) headers.connection = 'close';
    response.writeHead(200, headers);
    response.end(bytes);
    const milliseconds = performance.now() - started;
    metrics.hotHits.record(labelsFor(hit.meta), milliseconds / 1_000);
    // Hits are logged at debug level: a log line costs more than serving one (metrics count them all).
    if (logger.isLevelEnabled('debug')) {
      logger.debug(
        { reqId: requestId, method: 'GET', url: request.url, statusCode: 200, responseTimeMs: milliseconds },
        'request completed from the in-process cache',
      );
    }
  };

  return (fastifyHandler: RequestListener): Server =>
    createServer((request, response) => {
      const hit = request.method === 'GET' && request.url ? cache.peek(restCacheKey(request.url)) : undefined;
      if (hit) serveHit(request, response, hit);
      else fastifyHandler(request, response);
    });
}

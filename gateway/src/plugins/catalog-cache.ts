import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { CachedRoute } from '../cache/entry.js';
import { restCacheKey } from '../cache/keys.js';
import type { MemoryEntry } from '../cache/memory-store.js';
import type { CacheParts } from '../cache/create-cache.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { addCommonHeaders, type Lifecycle } from '../http/common-headers.js';
import type { CorsPolicy } from '../http/cors.js';
import { ifNoneMatchHolds } from '../http/etags.js';
import type { HitMethod, HitStatus, HotHitLabels } from '../metrics/hot-hit-recorder.js';
import type { Metrics } from '../metrics/metrics.js';

/**
 * How a request answered from the in-process cache is handled, wherever it arrives (a Fastify
 * hook, or the server's hot lane in front of Fastify): which entry answers it, the response
 * written, and its metrics and log line.
 */
export class CacheHits {
  // One label set per route, method and status, made once: hits allocate nothing for their metrics.
  private readonly labelsByRoute = new Map<CachedRoute, Record<HitMethod, Record<HitStatus, HotHitLabels>>>();

  constructor(
    readonly cache: ResponseCache,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly lifecycle: Lifecycle,
    private readonly cors: CorsPolicy,
  ) {}

  /** The in-process entry answering a request: GETs and HEADs of REST paths, keyed by path and query as is. */
  entryFor(request: Pick<IncomingMessage, 'method' | 'url'>): MemoryEntry | undefined {
    return (request.method === 'GET' || request.method === 'HEAD') && request.url ? this.cache.peek(restCacheKey(request.url)) : undefined;
  }

  /**
   * Writes the cached answer in the encoding the client accepts, with its headers,
   * those every response carries and CORS's for the request's origin: a 304 without a body when
   * the client's copy is current (a HEAD gets the headers of the GET, Node writes no body).
   * Returns the status written.
   */
  serve(request: IncomingMessage, response: ServerResponse, entry: MemoryEntry, requestId: string): HitStatus {
    const representation = entry.representations.negotiate(request.headers['accept-encoding']);
    const { origin } = request.headers;
    if (ifNoneMatchHolds(request.headers['if-none-match'], representation.etag)) {
      const headers = addCommonHeaders(representation.notModifiedHeaders(), requestId, this.lifecycle);
      response.writeHead(304, this.cors.addTo(headers, origin));
      response.end();
      return 304;
    }
    const headers = addCommonHeaders(representation.headers(), requestId, this.lifecycle);
    response.writeHead(200, this.cors.addTo(headers, origin));
    response.end(representation.body);
    return 200;
  }

  /**
   * Counts a hit under its route as a request and as an in-process cache hit (batched: see
   * HotHitRecorder), and logs it at debug level only: a log line costs more than serving a hit,
   * and the metrics count them all.
   */
  account(entry: MemoryEntry, method: HitMethod, statusCode: HitStatus, reqId: string, url: string, milliseconds: number): void {
    this.metrics.hotHits.record(this.labelsFor(entry.route)[method][statusCode], milliseconds / 1_000);
    if (this.logger.isLevelEnabled('debug')) {
      this.logger.debug({ reqId, method, url, statusCode, responseTimeMs: milliseconds }, 'request completed from the in-process cache');
    }
  }

  private labelsFor(route: CachedRoute): Record<HitMethod, Record<HitStatus, HotHitLabels>> {
    let labels = this.labelsByRoute.get(route);
    if (!labels) {
      const byStatus = (method: HitMethod) => ({
        200: { method, route, status_code: '200' as const },
        304: { method, route, status_code: '304' as const },
      });
      this.labelsByRoute.set(route, (labels = { GET: byStatus('GET'), HEAD: byStatus('HEAD') }));
    }
    return labels;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The response cache (routes compute through it; tests wait on its background writes). */
    catalogCache: ResponseCache;
  }
  interface FastifyRequest {
    /** The in-process entry this request was answered with, if any. */
    cacheHit: MemoryEntry | null;
  }
}

/** Whether a request was answered from the in-process cache (its metrics and log line are the cache's). */
export const answeredFromCache = (request: FastifyRequest): boolean => Boolean(request.cacheHit);

export interface CatalogCacheOptions {
  parts: CacheParts;
  hits: CacheHits;
}

/**
 * The response cache as a Fastify plugin (in the manner of @fastify/redis): decorates the
 * instance with it, answers GETs it holds in an `onRequest` hook (the reply hijacked: written
 * as the hot lane writes it, no handler, validation, serialisation or onSend hooks), accounts
 * for those answers, and closes it with the instance.
 */
export const catalogCache = fp<CatalogCacheOptions>(
  async (app: FastifyInstance, { parts, hits }) => {
    app.decorate('catalogCache', parts.cache);
    app.decorateRequest('cacheHit', null);
    app.addHook('onRequest', (request, reply, done) => {
      const entry = hits.entryFor(request.raw);
      if (!entry) return done();
      request.cacheHit = entry;
      reply.hijack();
      hits.serve(request.raw, reply.raw, entry, request.id);
    });
    app.addHook('onResponse', (request, reply, done) => {
      if (request.cacheHit) {
        const method = request.method as HitMethod;
        hits.account(request.cacheHit, method, reply.raw.statusCode as HitStatus, request.id, request.url, reply.elapsedTime);
      }
      done();
    });
    app.addHook('onClose', () => parts.close());
  },
  { name: 'catalog-cache', fastify: '5.x' },
);

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { CachedRoute } from '../cache/entry.js';
import { restCacheKey } from '../cache/keys.js';
import type { MemoryEntry } from '../cache/memory-store.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { addCommonHeaders, type Lifecycle } from '../http/common-headers.js';
import type { CorsPolicy } from '../http/cors.js';
import { ifNoneMatchHolds } from '../http/etags.js';
import type { HitMethod, HitStatus, CacheHitLabels } from '../metrics/cache-hit-recorder.js';
import type { Metrics } from '../metrics/metrics.js';

/** The paths of the cached REST routes (the list, a product, its styles, its related ids), query and all. */
const CACHED_REST_PATH = /^\/products(?:\/\d+(?:\/(?:styles|related))?)?(?:\?|$)/;

/** Where a cached answer came from: memory, or Redis on its way into memory. */
export type HitSource = 'memory' | 'shared';

/**
 * How a request answered from the cache before any route is handled, wherever it arrives (the
 * server's hot lane in front of Fastify, or a Fastify hook): which entry answers it (in-process,
 * else Redis's), the response written, and its metrics and log line.
 */
export class CacheHits {
  // One label set per route, method and status, made once: hits allocate nothing for their metrics.
  private readonly labelsByRoute = new Map<CachedRoute, Record<HitMethod, Record<HitStatus, CacheHitLabels>>>();
  /** Requests whose Redis copy was asked for at the edge: the route does not ask again. */
  private readonly askedShared = new WeakSet<IncomingMessage>();

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
   * Whether Redis may hold the answer to a request the in-process cache missed: GETs and HEADs of
   * the cached REST routes' paths, when responses are shared.
   */
  mayBeShared(request: IncomingMessage): boolean {
    return this.cache.shared && (request.method === 'GET' || request.method === 'HEAD') && CACHED_REST_PATH.test(request.url!);
  }

  /**
   * Redis's entry for a request (`mayBeShared`), kept in memory on its way. Marks the request as
   * asked, so that on a miss its route computes the answer without asking Redis again.
   */
  sharedEntryFor(request: IncomingMessage): Promise<MemoryEntry | undefined> {
    this.askedShared.add(request);
    return this.cache.sharedEntry(restCacheKey(request.url!));
  }

  /** Whether the edge asked Redis for this request already (and it missed: else it answered). */
  askedSharedFor(request: IncomingMessage): boolean {
    return this.askedShared.has(request);
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
   * Counts a hit under its route as a request, and as an in-process cache hit when memory
   * answered it (batched: see CacheHitRecorder); logs it at debug level only: a log line costs
   * more than serving a hit, and the metrics count them all.
   */
  account(
    entry: MemoryEntry,
    source: HitSource,
    method: HitMethod,
    statusCode: HitStatus,
    reqId: string,
    url: string,
    milliseconds: number,
  ): void {
    this.metrics.cacheHitRecorder.record(this.labelsFor(entry.route)[method][statusCode], milliseconds / 1_000, source === 'memory');
    if (this.logger.isLevelEnabled('debug')) {
      this.logger.debug(
        { reqId, method, url, statusCode, responseTimeMs: milliseconds, cache: source },
        'request completed from the cache',
      );
    }
  }

  private labelsFor(route: CachedRoute): Record<HitMethod, Record<HitStatus, CacheHitLabels>> {
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
    /** The cache entry this request was answered with before any route, if any. */
    cacheHit: { entry: MemoryEntry; source: HitSource } | null;
    /** Memory and Redis were both asked for this request's answer, and missed: its route need not ask again. */
    cacheLookedUp: boolean;
  }
}

/** Whether a request was answered from the cache before any route (its metrics and log line are the cache's). */
export const answeredFromCache = (request: FastifyRequest): boolean => Boolean(request.cacheHit);

export interface CatalogCacheOptions {
  cache: ResponseCache;
  hits: CacheHits;
}

/**
 * The response cache as a Fastify plugin (in the manner of @fastify/redis): decorates the
 * instance with it, answers GETs it holds in an `onRequest` hook (the reply hijacked: written
 * as the hot lane writes it, no handler, validation, serialisation or onSend hooks), accounts
 * for those answers, and closes it with the instance. Behind the hot lane, the hook only sees
 * what the lane could not answer, and asks Redis no second time.
 */
export const catalogCache = fp<CatalogCacheOptions>(
  async (app: FastifyInstance, { cache, hits }) => {
    app.decorate('catalogCache', cache);
    app.decorateRequest('cacheHit', null);
    app.decorateRequest('cacheLookedUp', false);
    const answer = (request: FastifyRequest, reply: FastifyReply, entry: MemoryEntry, source: HitSource) => {
      request.cacheHit = { entry, source };
      reply.hijack();
      hits.serve(request.raw, reply.raw, entry, request.id);
    };
    app.addHook('onRequest', (request, reply, done) => {
      const entry = hits.entryFor(request.raw);
      if (entry) return answer(request, reply, entry, 'memory');
      // Behind the hot lane, which asked Redis already.
      if (hits.askedSharedFor(request.raw)) {
        request.cacheLookedUp = true;
        return done();
      }
      if (!hits.mayBeShared(request.raw)) return done();
      hits.sharedEntryFor(request.raw).then(
        (shared) => {
          if (shared) return answer(request, reply, shared, 'shared');
          request.cacheLookedUp = true;
          done();
        },
        (error: Error) => done(error),
      );
    });
    app.addHook('onResponse', (request, reply, done) => {
      const hit = request.cacheHit;
      if (hit) {
        const method = request.method as HitMethod;
        hits.account(hit.entry, hit.source, method, reply.raw.statusCode as HitStatus, request.id, request.url, reply.elapsedTime);
      }
      done();
    });
  },
  { name: 'catalog-cache', fastify: '5.x' },
);

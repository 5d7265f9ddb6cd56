import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { addCommonHeaders, type Lifecycle } from '../../http/common-headers.js';
import type { CorsPolicy } from '../../http/cors.js';
import type { CacheHitLabels, HitMethod, HitStatus } from '../../metrics/cache-hit-recorder.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { CachedRoute } from '../cached-routes.js';
import type { MemoryEntry } from '../memory-store.js';
import { JSON_CONTENT_TYPE } from '../../http/media-types.js';
import type { ServedResponse } from '../response-cache.js';
import { writeCatalogRead, type FinishHeaders } from './write-catalog-read.js';

/** Where an answer at the edge came from: memory, or Redis on its way into memory. */
export type EdgeSource = 'memory' | 'shared';

/**
 * Writes catalog reads, the same way wherever they are answered: at the edge before any route
 * (the hot lane), or by a route through Fastify. Either way the response carries, besides the
 * representation's own headers, those every response carries and CORS's for the request's
 * origin; Fastify's own hooks do not run for such a reply, its lifecycle's onResponse hooks do.
 */
export class EdgeResponder {
  // One label set per route, method and status, made once: edge answers allocate nothing for their metrics.
  private readonly labelsByRoute = new Map<CachedRoute, Record<HitMethod, Record<HitStatus, CacheHitLabels>>>();

  constructor(
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly lifecycle: Lifecycle,
    private readonly cors: CorsPolicy,
  ) {}

  /** The headers every answer to `request` carries besides its representation's. */
  finishHeaders(request: IncomingMessage, requestId: string): FinishHeaders {
    return (headers: OutgoingHttpHeader[]) => this.cors.addTo(addCommonHeaders(headers, requestId, this.lifecycle), request.headers.origin);
  }

  /**
   * Answers a GET or HEAD with a cached entry before any route, and accounts for it: a request
   * under its route's labels, an in-process hit when memory answered (batched: see
   * CacheHitRecorder), and a log line at debug level only (a log line costs more than the hit).
   */
  answer(
    request: IncomingMessage,
    response: ServerResponse,
    entry: MemoryEntry,
    source: EdgeSource,
    requestId: string,
    started: number,
  ): void {
    const status = writeCatalogRead(request, response, entry.representations, this.finishHeaders(request, requestId));
    const method = request.method as HitMethod;
    const milliseconds = performance.now() - started;
    this.metrics.cacheHitRecorder.record(this.labelsFor(entry.route)[method][status], milliseconds / 1_000, source === 'memory');
    if (this.logger.isLevelEnabled('debug')) {
      this.logger.debug(
        { reqId: requestId, method, url: request.url, statusCode: status, responseTimeMs: milliseconds, cache: source },
        'request completed from the cache',
      );
    }
  }

  /**
   * Sends what a route got from the response cache: a catalog read as the edge writes it (the
   * reply hijacked; `adjust` changes its headers as the route's own onSend hooks would), anything
   * else (errors, mutations) through Fastify as it is.
   */
  send(request: FastifyRequest, reply: FastifyReply, served: ServedResponse, adjust?: FinishHeaders): FastifyReply {
    if (!('representations' in served)) {
      for (const [name, value] of served.headers ?? []) reply.header(name, value);
      return reply.code(served.status).type(JSON_CONTENT_TYPE).send(served.body);
    }
    reply.hijack();
    const finish = this.finishHeaders(request.raw, request.id);
    writeCatalogRead(request.raw, reply.raw, served.representations, adjust ? (headers) => finish(adjust(headers)) : finish);
    return reply;
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

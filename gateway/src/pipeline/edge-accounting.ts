import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { CachedRoute } from '../cache/cached-routes.js';
import type { CacheHitLabels, HitMethod, HitStatus } from '../metrics/cache-hit-recorder.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RequestRecord } from './request-record.js';

/** Where an answer at the front door came from: memory, or Redis on its way into memory. */
export type EdgeSource = 'memory' | 'shared';

/**
 * Accounts for the answers the front door gives before any route (Fastify's hooks count and log
 * the rest): a request under its route's labels, an in-process hit when memory answered (batched:
 * see CacheHitRecorder), and a log line at debug level only (a log line costs more than the hit).
 */
export class EdgeAccounting {
  // One label set per route, method and status, made once: edge answers allocate nothing for their metrics.
  private readonly labelsByRoute = new Map<CachedRoute, Record<HitMethod, Record<HitStatus, CacheHitLabels>>>();

  constructor(
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {}

  answered(record: RequestRecord, request: IncomingMessage, route: CachedRoute, status: HitStatus, source: EdgeSource): void {
    const method = request.method as HitMethod;
    const milliseconds = performance.now() - record.started;
    this.metrics.cacheHitRecorder.record(this.labelsFor(route)[method][status], milliseconds / 1_000, source === 'memory');
    if (this.logger.isLevelEnabled('debug')) {
      this.logger.debug(
        { reqId: record.id, method, url: request.url, statusCode: status, responseTimeMs: milliseconds, cache: source },
        'request completed from the cache',
      );
    }
  }

  /** A request refused at the front door, before any route: its log line (Fastify's hooks never see it). */
  refused(record: RequestRecord, request: IncomingMessage, status: number): void {
    this.logger.info(
      {
        reqId: record.id,
        method: request.method,
        url: request.url,
        statusCode: status,
        responseTimeMs: performance.now() - record.started,
      },
      'request completed',
    );
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

import type { FastifyInstance } from 'fastify';
import { nameRequestRoute } from '../telemetry/request-spans.js';
import { observeDuration, requestExemplar } from './exemplars.js';
import type { Metrics } from './metrics.js';

/**
 * Per-route request counts and durations, labelled by the route pattern (a traced request's
 * duration with its trace as exemplar, its span named after the route); served on the metrics
 * listener, not here. Answers the cache's edge gives before Fastify are counted by it (in
 * batches: CacheHitRecorder).
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    observeDuration(metrics.httpDuration, labels, reply.elapsedTime / 1_000, requestExemplar());
    nameRequestRoute(request.method, request.routeOptions.url);
    done();
  });
}

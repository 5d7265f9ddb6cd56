import type { FastifyInstance } from 'fastify';
import { answeredFromCache } from '../plugins/catalog-cache.js';
import type { Metrics } from './metrics.js';

/**
 * Per-route request counts and durations, labelled by the route pattern (served on the metrics
 * listener, not here). Answers from the in-process cache are counted by the catalog-cache plugin
 * (in batches).
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    if (answeredFromCache(request)) return done();
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1_000);
    done();
  });
}

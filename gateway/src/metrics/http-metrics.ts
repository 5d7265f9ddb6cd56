import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.js';

/**
 * Per-route request counts and durations, labelled by the route pattern, plus GET /metrics.
 * Answers the cache's edge gives before Fastify are counted by it (in batches: CacheHitRecorder).
 */
export function installHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1_000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
}

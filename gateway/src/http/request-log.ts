import type { FastifyInstance } from 'fastify';

/**
 * One structured line per request Fastify handles (its default is two), carrying the request id;
 * the arrival is logged at debug level only, for following a slow request live. Answers the
 * front door gives before Fastify have their own line (pipeline/edge-accounting.ts).
 */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      { method: request.method, url: request.url, statusCode: reply.statusCode, responseTimeMs: reply.elapsedTime },
      'request completed',
    );
    done();
  });
}

import type { FastifyInstance } from 'fastify';
import { answeredFromCache } from '../plugins/catalog-cache.js';

/**
 * One structured line per request (Fastify's default is two), carrying the request id; the
 * arrival is logged at debug level only, for following a slow request live. Answers from the
 * in-process cache have their own line (the catalog-cache plugin's).
 */
export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (answeredFromCache(request)) return done();
    request.log.info(
      { method: request.method, url: request.url, statusCode: reply.statusCode, responseTimeMs: reply.elapsedTime },
      'request completed',
    );
    done();
  });
}

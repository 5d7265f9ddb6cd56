import type { FastifyInstance } from 'fastify';
import { restErrorBody } from './error-bodies.js';
import type { RespondWithError } from './error-handler.js';

/**
 * Answers 405 with `Allow` when a known path is asked with a method it does not serve (Fastify
 * itself answers 404, or 400 for a body-less QUERY). Records every route as it is added, so it
 * must be installed before the routes; it answers in onRequest, before any body is read.
 */
export function installMethodNotAllowed(app: FastifyInstance, respond: RespondWithError): void {
  const routes: Array<{ pattern: RegExp; methods: string[] }> = [];
  app.addHook('onRoute', (route) => {
    const source = route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+');
    routes.push({ pattern: new RegExp(`^${source}/?$`), methods: [route.method].flat() });
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done();
    const path = request.url.split('?')[0]!;
    const allowed = [...new Set(routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods))].sort();
    if (allowed.length === 0) return done();
    respond(request, reply, {
      status: 405,
      headers: [['allow', allowed.join(', ')]],
      body: restErrorBody(`${request.method} is not allowed on ${path}: use ${allowed.join(', ')}`),
    });
  });
}

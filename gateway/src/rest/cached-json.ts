import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { restCacheKey } from '../cache/keys.js';
import { createRequestScope, type RequestScope, type Services } from '../services.js';

/**
 * Answers a GET from the response cache, or builds it with a fresh request scope, serialises it
 * with the route's response schema and caches the bytes, tagged with the products it used.
 */
export async function replyCached(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  build: (scope: RequestScope) => Promise<unknown>,
): Promise<FastifyReply> {
  const served = await services.cache.getOrCompute(restCacheKey(request.url), async () => {
    const scope = createRequestScope(services);
    const body = reply.serialize(await build(scope)) as string; // JSON serialisers return text
    return { status: 200, body, meta: '', tags: scope.tags.values, cacheable: true };
  });
  return reply.code(served.status).type('application/json; charset=utf-8').send(served.body);
}

/**
 * Answers GETs whose response is in the in-process cache straight from the onRequest hook,
 * skipping validation and the handler: the hot path of a hot catalog.
 */
export function serveHotResponses(app: FastifyInstance, services: Services): void {
  app.addHook('onRequest', (request, reply, done) => {
    const hit = request.method === 'GET' ? services.cache.peek(restCacheKey(request.url)) : undefined;
    if (!hit) return done();
    reply.code(hit.status).type('application/json; charset=utf-8').send(hit.body);
  });
}

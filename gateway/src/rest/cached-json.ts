import type { FastifyReply, FastifyRequest } from 'fastify';
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
    // The route pattern travels with the cached bytes: the hot lane labels its metrics with it.
    return { status: 200, body, meta: request.routeOptions.url ?? 'unmatched', tags: scope.tags.values, cacheable: true };
  });
  return reply.code(served.status).type('application/json; charset=utf-8').send(served.body);
}

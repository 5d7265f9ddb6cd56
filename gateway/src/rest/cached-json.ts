import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CachedRoute } from '../cache/entry.js';
import { restCacheKey } from '../cache/keys.js';
import { sendServed } from '../http/served-reply.js';
import { createRequestScope, type RequestScope, type Services } from '../services.js';

/**
 * Answers a GET of `route` from the response cache, or builds it with a fresh request scope,
 * serialises it with the route's response schema and caches the bytes, tagged with the products
 * it used and named by its route (a later hit is labelled with it).
 */
export async function replyCached(
  services: Services,
  route: CachedRoute,
  request: FastifyRequest,
  reply: FastifyReply,
  build: (scope: RequestScope) => Promise<unknown>,
): Promise<FastifyReply> {
  const served = await services.cache.getOrCompute(
    restCacheKey(request.url),
    async () => {
      const scope = createRequestScope(services);
      const body = reply.serialize(await build(scope)) as string; // JSON serialisers return text
      return { status: 200, body, route, tags: scope.tags, cacheable: true };
    },
    request.cacheLookedUp,
  );
  return sendServed(request, reply, served);
}

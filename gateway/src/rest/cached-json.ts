import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CachedRoute } from '../cache/cached-routes.js';
import { createRequestScope, type RequestScope, type Services } from '../services.js';

/**
 * Answers a GET of `route` from the response cache under `key` (its canonical cache key), or
 * builds it with a fresh request scope over the read target the cache chooses (a replica when it may), serialises it with the route's response schema and
 * caches the bytes, tagged with the products it used and named by its route (a later hit is
 * labelled with it). The URL as the client spelt it becomes an alias of the key, so its next
 * request is answered at the front door. A key the front door's look-up missed for this request
 * (its record says) is not looked up again.
 */
export async function replyCached(
  services: Services,
  route: CachedRoute,
  key: string,
  request: FastifyRequest,
  reply: FastifyReply,
  build: (scope: RequestScope) => Promise<unknown>,
): Promise<FastifyReply> {
  const { lookup, writer } = services.pipeline;
  lookup.alias(request.url, key);
  const served = await lookup.getOrCompute(request.record, key, async (target) => {
    const scope = createRequestScope(services, target);
    const body = reply.serialize(await build(scope)) as string; // JSON serialisers return text
    return { status: 200, body, route, tags: scope.tags, cacheable: true };
  });
  return writer.respond(request, reply, served);
}

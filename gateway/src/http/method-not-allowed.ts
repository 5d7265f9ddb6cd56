import type { FastifyInstance } from 'fastify';

/**
 * Answers 405 with `Allow` when a known path is asked with a method it does not serve (Fastify
 * itself answers 404, or 400 for a body-less QUERY). Records every route as it is added, so it
 * must be installed before the routes; it answers in onRequest, before any body is read.
 */
export function installMethodNotAllowed(app: FastifyInstance): void {
  const routes: Array<{ pattern: RegExp; methods: string[] }> = [];
  app.addHook('onRoute', (route) => {
    const source = route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+');
    routes.push({ pattern: new RegExp(`^${source}/?$`), methods: [route.method].flat() });
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0]!;
    const allowed = [...new Set(routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods))].sort();
    if (allowed.length === 0) return;
    return reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send({ error: `${request.method} is not allowed on ${path}: use ${allowed.join(', ')}` });
  });
}

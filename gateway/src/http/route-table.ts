import type { FastifyInstance } from 'fastify';

export interface RouteTable {
  /** Methods served on this path (any route whose pattern matches it); empty for an unknown path. */
  allowedMethods(path: string): string[];
}

/**
 * Records every route as it is added, so a request with an unsupported method on a known path
 * can be answered 405 with `Allow` (Fastify itself answers 404). Install before the routes.
 */
export function recordRoutes(app: FastifyInstance): RouteTable {
  const routes: Array<{ pattern: RegExp; methods: string[] }> = [];
  app.addHook('onRoute', (route) => {
    const source = route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:\w+/g, '[^/]+');
    routes.push({ pattern: new RegExp(`^${source}/?$`), methods: [route.method].flat() });
  });
  return {
    allowedMethods(path) {
      const methods = new Set(routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods));
      return [...methods].sort();
    },
  };
}

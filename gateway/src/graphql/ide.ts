import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import Negotiator from 'negotiator';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where `npm run build` puts the IDE's bundled assets (gateway/ide/build.ts); the same from src/ and dist/. */
const ASSETS = fileURLToPath(new URL('../../dist/ide/', import.meta.url));
const ASSETS_PREFIX = '/graphql/ide/';

/** The IDE page allows only its own assets and the endpoint; Monaco injects inline styles. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

type ConstraintStrategy = Parameters<FastifyInstance['addConstraintStrategy']>[0];
type RouteHandler = NonNullable<ReturnType<ReturnType<ConstraintStrategy['storage']>['get']>>;

/**
 * A route constraint: a request whose Accept header prefers HTML to JSON (a browser's navigation)
 * derives `text/html`; others derive nothing and reach the unconstrained routes, so
 * `GET /graphql` for the IDE and `GET /graphql` for GraphQL-over-HTTP clients coexist.
 */
const preferredMediaType: ConstraintStrategy = {
  name: 'preferredMediaType',
  storage() {
    const handlers = new Map<string, RouteHandler>();
    return {
      get: (type: string) => handlers.get(type) ?? null,
      set: (type: string, store: RouteHandler) => void handlers.set(type, store),
    };
  },
  deriveConstraint(request) {
    const accept = request.headers.accept;
    if (typeof accept !== 'string' || !accept.includes('html')) return undefined;
    return new Negotiator({ headers: { accept } }).mediaType(['application/json', 'text/html']) === 'text/html' ? 'text/html' : undefined;
  },
  mustMatchWhenDerived: false,
};

function idePage(manifest: { script: string; stylesheet: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>catalog-gateway · GraphiQL</title>
<link rel="stylesheet" href="${ASSETS_PREFIX}${manifest.stylesheet}">
<style>body { margin: 0; } #graphiql { height: 100vh; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script type="module" src="${ASSETS_PREFIX}${manifest.script}"></script>
</body>
</html>
`;
}

/**
 * The GraphQL IDE (GraphiQL) for browsers at `GET /graphql`, and its assets under
 * `/graphql/ide/`, all served from the gateway's own build: no CDN, works offline. The assets
 * have content-hashed names, so they are cached as immutable; the page itself is revalidated.
 */
export async function graphqlIde(app: FastifyInstance): Promise<void> {
  const manifestFile = `${ASSETS}manifest.json`;
  if (!existsSync(manifestFile)) {
    throw new Error(`the GraphQL IDE's assets are missing from ${ASSETS}: run \`npm run build\`, or set GRAPHQL_IDE=false`);
  }
  const page = idePage(JSON.parse(readFileSync(manifestFile, 'utf8')));

  app.addConstraintStrategy(preferredMediaType);
  app.get('/graphql', { constraints: { preferredMediaType: 'text/html' }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('cache-control', 'no-cache')
      .header('vary', 'Accept')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(page),
  );
  await app.register(fastifyStatic, {
    root: ASSETS,
    prefix: ASSETS_PREFIX,
    decorateReply: false,
    wildcard: false,
    index: false,
    preCompressed: true,
    immutable: true,
    maxAge: '365d',
  });
}

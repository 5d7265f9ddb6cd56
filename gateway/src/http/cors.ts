import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { OutgoingHttpHeader } from 'node:http';

/** What a page on an allowed origin may send: the REST verbs and what GraphQL clients use. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];
const REQUEST_HEADERS = ['content-type', 'authorization', 'apollo-require-preflight', 'x-apollo-operation-name'];
/** Response headers a page may read besides the safelisted ones. */
const EXPOSED_HEADERS = ['x-request-id', 'etag'];
const EXPOSED_HEADERS_VALUE = EXPOSED_HEADERS.join(', ');
/** How long a browser may reuse a preflight answer (Chromium caps it at 2 h). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Which browser origins may read the gateway's responses (CORS_ORIGINS, CORS_CREDENTIALS). One
 * decision for every way a response is written: through Fastify (by @fastify/cors, asking
 * `allows`) and from the in-process cache ahead of Fastify's hooks (`addTo`).
 */
export class CorsPolicy {
  private readonly origins: ReadonlySet<string>;

  constructor(
    origins: readonly string[],
    readonly credentials: boolean,
  ) {
    this.origins = new Set(origins);
  }

  /** Off (no origins configured): no response carries CORS headers. */
  get enabled(): boolean {
    return this.origins.size > 0;
  }

  allows(origin: string | undefined): origin is string {
    return origin !== undefined && this.origins.has(origin);
  }

  /**
   * Adds to a non-preflight response's headers (a flat [name, value, …] list, as the cache's
   * answers are written) what @fastify/cors adds for a request from `origin`: `Vary: Origin`
   * whenever CORS is on (the answer depends on it), the allowed origin echoed, credentials and
   * the exposed headers.
   */
  addTo(headers: OutgoingHttpHeader[], origin: string | undefined): OutgoingHttpHeader[] {
    if (!this.enabled) return headers;
    const vary = headers.findIndex((name, index) => index % 2 === 0 && name === 'vary');
    // Origin first, as @fastify/cors sets it before a route adds Accept-Encoding.
    if (vary >= 0) headers[vary + 1] = `Origin, ${String(headers[vary + 1])}`;
    else headers.push('vary', 'Origin');
    if (!this.allows(origin)) return headers;
    headers.push('access-control-allow-origin', origin);
    if (this.credentials) headers.push('access-control-allow-credentials', 'true');
    headers.push('access-control-expose-headers', EXPOSED_HEADERS_VALUE);
    return headers;
  }
}

/**
 * CORS on every response Fastify writes, and preflight (`OPTIONS`) answers, when origins are
 * configured. Install before the hooks that may answer early (405), so their answers carry it too.
 */
export async function installCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  if (!policy.enabled) return;
  await app.register(cors, {
    origin: (origin, callback) => callback(null, policy.allows(origin)),
    credentials: policy.credentials,
    methods: METHODS,
    allowedHeaders: REQUEST_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    // An OPTIONS without Access-Control-Request-Method is answered like a preflight, not with
    // the plugin's plain-text 400.
    strictPreflight: false,
  });
}

import type { ServerOptions } from 'node:http';
import type { Config } from '../config.js';

/**
 * The HTTP server's timeouts, set on purpose: Fastify applies its own defaults only to a server
 * it creates, and the gateway's (pipeline/front-door.ts) is created by a server factory, which would
 * leave Node's: idle keep-alive connections closed after 5 s, before any proxy in front would
 * close them itself (a request it sends on one meanwhile fails with a reset).
 */
export function serverTimeouts(config: Config): ServerOptions {
  return {
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    // How often the two above are checked (Node's default, 30 s, would let them run 30 s late).
    connectionsCheckingInterval: 1_000,
  };
}

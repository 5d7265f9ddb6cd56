import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Lifecycle } from './common-headers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Drains, then closes: responses ask clients to hang up (`Connection: close`) while open
     * connections are given up to `keepAliveWaitMs` to close; then `close()` stops listening,
     * closes what is left idle and waits for requests in flight.
     */
    closeGracefully(keepAliveWaitMs: number): Promise<void>;
  }
}

const POLL_MS = 50;

/**
 * Why wait before closing: Fastify's close destroys idle keep-alive connections at once, and a
 * client may already be sending its next request on one. An HTTP client retries such a request
 * only when it is idempotent, so a POST (every GraphQL request) would fail. Kubernetes keeps
 * established connections to a terminating pod, so during rollouts this happens to busy clients.
 * Given a moment, each busy client gets one more response, with `Connection: close`, and hangs
 * up itself.
 */
export function installGracefulClose(app: FastifyInstance, lifecycle: Lifecycle): void {
  app.decorate('closeGracefully', async (keepAliveWaitMs: number) => {
    lifecycle.closing = true;
    const deadline = Date.now() + keepAliveWaitMs;
    while (Date.now() < deadline && (await openConnections(app)) > 0) await sleep(POLL_MS);
    await app.close();
  });
}

function openConnections(app: FastifyInstance): Promise<number> {
  return new Promise((resolve, reject) => app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

import type { FastifyInstance } from 'fastify';
import type { Lifecycle } from '../http/common-headers.js';

const statusSchema = {
  type: 'object',
  properties: { status: { type: 'string' }, error: { type: 'string' } },
} as const;

/**
 * Kubernetes probes. /healthz: the process answers. /readyz: this pod can serve, which is true
 * from the moment it listens until it starts draining. Readiness asks no dependency: when
 * Postgres restarts or the pool is saturated, every pod would turn unready at once and the
 * Service would drop the cached reads they can still serve; a read they cannot serve is a fast
 * 503 with Retry-After on its own.
 */
export function healthRoutes(lifecycle: Lifecycle) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', { schema: { summary: 'Liveness', response: { 200: statusSchema } } }, async () => ({ status: 'ok' }));

    app.get(
      '/readyz',
      {
        schema: {
          summary: 'Readiness: serving (listening, not draining); dependencies are not asked',
          response: { 200: statusSchema, 503: statusSchema },
        },
      },
      async (_request, reply) => {
        if (!lifecycle.closing) return { status: 'ready' };
        // Draining: requests on open connections are still served, new ones belong to other pods.
        return reply.code(503).send({ status: 'draining', error: 'shutting down' });
      },
    );
  };
}

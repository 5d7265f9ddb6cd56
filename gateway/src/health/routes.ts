import type { FastifyInstance } from 'fastify';
import type { Lifecycle } from '../http/common-headers.js';
import type { ResponseWriter } from '../pipeline/response-writer.js';

const statusSchema = {
  type: 'object',
  properties: { status: { type: 'string' }, error: { type: 'string' } },
} as const;

/**
 * Kubernetes probes. /healthz: the process answers. /readyz: this pod can serve, which is true
 * from the moment it listens until it starts draining. Readiness asks no dependency: when
 * Postgres restarts or the pool is saturated, every pod would turn unready at once and the
 * Service would drop the cached reads they can still serve; a read they cannot serve is a fast
 * 503 with Retry-After on its own. Their answers are fixed, so they are written as text once.
 */
const ALIVE = { status: 200, body: JSON.stringify({ status: 'ok' }) };
const READY = { status: 200, body: JSON.stringify({ status: 'ready' }) };
const DRAINING = { status: 503, body: JSON.stringify({ status: 'draining', error: 'shutting down' }) };

export function healthRoutes(lifecycle: Lifecycle, writer: ResponseWriter) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', { schema: { summary: 'Liveness', response: { 200: statusSchema } } }, async (request, reply) =>
      writer.respond(request, reply, ALIVE),
    );

    app.get(
      '/readyz',
      {
        schema: {
          summary: 'Readiness: serving (listening, not draining); dependencies are not asked',
          response: { 200: statusSchema, 503: statusSchema },
        },
      },
      // Draining: requests on open connections are still served, new ones belong to other pods.
      async (request, reply) => writer.respond(request, reply, lifecycle.closing ? DRAINING : READY),
    );
  };
}

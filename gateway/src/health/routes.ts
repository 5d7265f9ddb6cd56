import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';

const statusSchema = {
  type: 'object',
  properties: { status: { type: 'string' }, error: { type: 'string' } },
} as const;

/** Kubernetes probes: /healthz = the process answers; /readyz = it can reach Postgres. */
export function healthRoutes(db: Database) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', { schema: { summary: 'Liveness', response: { 200: statusSchema } } }, async () => ({ status: 'ok' }));

    app.get(
      '/readyz',
      { schema: { summary: 'Readiness: Postgres reachable', response: { 200: statusSchema, 503: statusSchema } } },
      async (request, reply) => {
        try {
          await db.query('SELECT 1');
          return { status: 'ready' };
        } catch (error) {
          request.log.warn({ err: error }, 'not ready: database unreachable');
          return reply.code(503).header('retry-after', '2').send({ status: 'unavailable', error: 'database unreachable' });
        }
      },
    );
  };
}

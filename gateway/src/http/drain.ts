import type { FastifyInstance } from 'fastify';
import type { Lifecycle } from './hot-lane.js';

/**
 * While closing, responses to requests still in flight say `Connection: close`, so keep-alive
 * clients hang up at once instead of holding the drain open until their idle timeout.
 */
export function installConnectionDraining(app: FastifyInstance, lifecycle: Lifecycle): void {
  app.addHook('preClose', async () => {
    lifecycle.closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (lifecycle.closing) reply.header('connection', 'close');
    done(null, payload);
  });
}

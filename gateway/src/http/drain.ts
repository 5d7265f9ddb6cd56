import type { FastifyInstance } from 'fastify';

/**
 * While closing, responses to requests still in flight say `Connection: close`, so keep-alive
 * clients hang up at once instead of holding the drain open until their idle timeout.
 */
export function installConnectionDraining(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}

// Serves PostGraphile at POST /graphql with grafserv's node:http adaptor on HOST:PORT.
import { createServer } from 'node:http';
import { postgraphile } from 'postgraphile';
import { grafserv } from 'postgraphile/grafserv/node';
import preset from './graphile.config.mjs';

const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 5678);

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.on('error', (error) => {
  console.error(error);
  process.exit(1);
});
await serv.addTo(server);
// Build the schema before accepting traffic, so the benchmark's readiness probe means "ready".
await pgl.getSchema();
server.listen(port, host, () => console.log(`postgraphile listening on http://${host}:${port}/graphql`));

const shutdown = async () => {
  server.close();
  await pgl.release();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

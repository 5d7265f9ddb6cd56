import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startEmbeddedCatalog, type EmbeddedCatalog } from './embedded/embedded-catalog.js';
import { createProcessLogger } from './logging.js';

const USAGE = `usage: catalog-gateway [--embedded]

  --embedded   without DATABASE_URL, run a private Postgres under <repo>/.data (EMBEDDED_DATA_DIR)
               and load a sample catalog into it on first start

Settings come from environment variables; see gateway/README.md.`;

const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../.data/', import.meta.url));

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

let options: { embedded: boolean };
let config: Config;
try {
  const { values } = parseArgs({ options: { embedded: { type: 'boolean', default: false }, help: { type: 'boolean' } } });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  options = { embedded: values.embedded ?? false };
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : `${(error as Error).message}\n\n${USAGE}`);
}

const { logger, flush } = createProcessLogger(config.LOG_LEVEL);
if (!config.DATABASE_URL && !options.embedded) {
  fail('DATABASE_URL is not set: set it, or start with --embedded (npm start) for a local Postgres');
}

let embedded: EmbeddedCatalog | undefined;
let app: FastifyInstance;
try {
  if (!config.DATABASE_URL) {
    embedded = await startEmbeddedCatalog(config.EMBEDDED_DATA_DIR ?? DEFAULT_DATA_DIR, logger);
    config = { ...config, DATABASE_URL: embedded.databaseUrl };
  }
  app = await buildApp(config, { logger });
  await app.listen({ host: config.HOST, port: config.PORT });
} catch (error) {
  logger.fatal({ err: error }, 'catalog-gateway failed to start');
  flush();
  await embedded?.stop();
  process.exit(1);
}
const { port } = app.server.address() as { port: number };
const base = `http://${config.HOST}:${port}`;
logger.info({ graphql: `${base}/graphql`, rest: `${base}/products`, docs: `${base}/docs`, metrics: `${base}/metrics` }, 'catalog-gateway ready');
if (embedded) {
  process.stdout.write(`\ncatalog-gateway serving\n  GraphQL  ${base}/graphql\n  REST     ${base}/products\n  Docs     ${base}/docs\n  Metrics  ${base}/metrics\n\n`);
}

// SIGTERM: stop accepting, let in-flight requests finish (at most SHUTDOWN_GRACE_MS), then close.
let shuttingDown = false;
async function shutDown(signal: string): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  logger.info({ signal, graceMs: config.SHUTDOWN_GRACE_MS }, 'shutting down: draining in-flight requests');
  setTimeout(() => {
    logger.error('grace period over with requests still running: exiting');
    flush();
    process.exit(1);
  }, config.SHUTDOWN_GRACE_MS).unref();
  await app.close();
  logger.info('requests drained, connections closed');
  await embedded?.stop();
  logger.info('shut down cleanly');
  flush();
  process.exit(0);
}
process.on('SIGTERM', () => void shutDown('SIGTERM'));
process.on('SIGINT', () => void shutDown('SIGINT'));

import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createProcessLogger } from './logging.js';
import { nodeSupport } from './runtime/node-support.js';

const USAGE = `usage: catalog-gateway

Settings come from environment variables; see gateway/README.md. For a local Postgres with a
sample catalog, run \`npm start\` in the repository.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

let config: Config;
try {
  const { values } = parseArgs({ options: { help: { type: 'boolean' } } });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : `${(error as Error).message}\n\n${USAGE}`);
}

const { logger, flush } = createProcessLogger(config.LOG_LEVEL);
// bin/catalog-gateway.js refused a Node that cannot run it already; this says which one runs.
const support = nodeSupport();
if (support.verdict === 'supported') logger.info({ node: process.version }, support.message);
else logger.warn({ node: process.version }, support.message);
if (!config.DATABASE_URL) {
  fail('DATABASE_URL is not set: set it, or run `npm start` in the repository for a local Postgres');
}

// Tracing patches pg, ioredis, graphql and dataloader as they load: it starts before the gateway's
// modules are imported (off, its SDK is not even loaded).
// The OpenTelemetry switches: disabled, or no exporter, means no SDK at all.
const endpoint = config.OTEL_SDK_DISABLED || config.OTEL_TRACES_EXPORTER === 'none' ? undefined : config.OTEL_EXPORTER_OTLP_ENDPOINT;
const stopTracing = endpoint
  ? await (await import('./telemetry/start.js')).startTracing({ ...config, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })
  : undefined;
if (endpoint) {
  logger.info(
    { endpoint, sampler: config.OTEL_TRACES_SAMPLER, ratio: config.OTEL_TRACES_SAMPLER_ARG, service: config.OTEL_SERVICE_NAME },
    'tracing on',
  );
}
const { buildApp } = await import('./app.js');

let app: FastifyInstance;
try {
  app = await buildApp(config, { logger });
  await app.listen({ host: config.HOST, port: config.PORT });
} catch (error) {
  logger.fatal({ err: error }, 'catalog-gateway failed to start');
  flush();
  process.exit(1);
}
const { port } = app.server.address() as { port: number };
const base = `http://${config.HOST}:${port}`;
logger.info(
  { graphql: `${base}/graphql`, rest: `${base}/products`, docs: `${base}/docs`, metrics: app.metricsUrl },
  'catalog-gateway ready',
);

// SIGTERM: ask keep-alive clients to hang up (up to half of SHUTDOWN_GRACE_MS for them to get one
// more response), then stop accepting and let in-flight requests finish within the rest of it.
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
  await app.closeGracefully(config.SHUTDOWN_GRACE_MS / 2);
  logger.info('requests drained, connections closed');
  // The last requests' spans are still buffered.
  await stopTracing?.();
  logger.info('shut down cleanly');
  flush();
  process.exit(0);
}
process.on('SIGTERM', () => void shutDown('SIGTERM'));
process.on('SIGINT', () => void shutDown('SIGINT'));

import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { createCache } from './cache/create-cache.js';
import type { Config } from './config.js';
import { listenForCatalogSwaps } from './db/catalog-swaps.js';
import { Database } from './db/database.js';
import { PersistedQueryStore } from './graphql/persisted-query-store.js';
import { graphqlIde } from './graphql/ide.js';
import { graphqlRoute } from './graphql/route.js';
import { loadTrustedDocuments } from './graphql/trusted-documents.js';
import { healthRoutes } from './health/routes.js';
import { CatalogEvents } from './events/catalog-events.js';
import { installCommonHeaders, type Lifecycle } from './http/common-headers.js';
import { installGracefulClose } from './http/graceful-close.js';
import { CorsPolicy, installCors } from './http/cors.js';
import { createServerWithHotLane } from './http/hot-lane.js';
import { createRequestIds } from './http/request-ids.js';
import { formatValidationError, installErrorHandler } from './http/error-handler.js';
import { answerClientError } from './http/client-errors.js';
import { installUtf8JsonParser } from './http/json-body.js';
import { installMethodNotAllowed } from './http/method-not-allowed.js';
import { FailureLog } from './http/failure-log.js';
import { installOpenApi } from './http/openapi.js';
import { installRequestLog } from './http/request-log.js';
import { installValidators } from './http/validators.js';
import { installHttpMetrics } from './metrics/http-metrics.js';
import { createSharedBatchers } from './loaders/shared-batchers.js';
import { MetricsListener } from './metrics/metrics-listener.js';
import { createMetrics, observePool } from './metrics/metrics.js';
import { ProductPager } from './paging/product-pager.js';
import { CacheHits, catalogCache } from './plugins/catalog-cache.js';
import { createRepositories } from './repository/index.js';
import { productReadRoutes } from './rest/product-read-routes.js';
import { productWriteRoutes } from './rest/product-write-routes.js';
import type { Services } from './services.js';
import { ProductWrites } from './writes/product-writes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The gateway's long-lived parts, for tests and tools that drive it in-process. */
    services: Services;
    /** Where Prometheus scrapes this gateway (its own listener, open once the app is ready). */
    readonly metricsUrl: string;
  }
}

export interface AppDependencies {
  logger?: Logger;
  /** How often repeated request failures are summarised in the log (tests shorten it). */
  failureSummaryMs?: number;
}

/** Builds the whole gateway as a Fastify instance (not listening yet); `close()` releases everything. */
export async function buildApp(config: Config, deps: AppDependencies = {}): Promise<FastifyInstance> {
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required (or run `npm start` in the repository)');
  const logger = deps.logger ?? pino({ level: config.LOG_LEVEL });
  // Read before anything is opened: a bad manifest stops the start-up with nothing to release.
  const trustedDocuments = loadTrustedDocuments(config);
  if (trustedDocuments) {
    logger.info(
      { manifest: config.GRAPHQL_TRUSTED_DOCUMENTS, operations: trustedDocuments.size },
      "trusted documents: only the manifest's operations run",
    );
  }
  const metrics = createMetrics();
  const db = new Database({
    url: config.DATABASE_URL,
    poolMax: config.DB_POOL_MAX,
    acquireTimeoutMs: config.DB_POOL_ACQUIRE_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    maxQueue: config.DB_QUEUE_MAX,
    maxQueueWaitMs: config.DB_QUEUE_MAX_WAIT_MS,
    onAdmissionReject: (reason) => metrics.dbAdmissionRejections.inc({ reason }),
    logger,
  });
  observePool(metrics, db.pool);
  const repositories = createRepositories(db);
  // What happens to the catalog (writes, catalog swaps, changes heard from other replicas):
  // the response cache and the pager each subscribe.
  const events = new CatalogEvents();
  const pager = new ProductPager(repositories.products, events);
  const cacheParts = createCache(config, events, metrics, logger);
  const catalogSwaps = listenForCatalogSwaps(config.DATABASE_URL, events, logger);
  const services: Services = {
    config,
    db,
    repositories,
    batchers: createSharedBatchers(repositories, (loader, size) => metrics.dataloaderBatchSize.observe({ loader }, size)),
    pager,
    cache: cacheParts.cache,
    persistedQueries: new PersistedQueryStore(cacheParts.redis, config.GRAPHQL_APQ_TTL_SECONDS),
    trustedDocuments,
    writes: new ProductWrites(repositories.products, events),
    metrics,
  };

  const lifecycle: Lifecycle = { closing: false };
  const requestIdOf = createRequestIds();
  const cors = new CorsPolicy(config.CORS_ORIGINS, config.CORS_CREDENTIALS);
  const cacheHits = new CacheHits(cacheParts.cache, metrics, logger, lifecycle, cors);
  const app = Fastify({
    serverFactory: createServerWithHotLane(cacheHits, requestIdOf),
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Request lines come from installRequestLog (one per request instead of two).
    logController: new LogController({ disableRequestLogging: true }),
    // The hot lane takes request ids the same way.
    requestIdHeader: false,
    genReqId: requestIdOf,
    schemaErrorFormatter: formatValidationError,
    // Longer than any URL Node accepts (its 16 KiB header limit answers 431 first), so an overlong
    // id is the route's 400 naming the parameter, not the router's 414 of its own 100-character limit.
    routerOptions: { maxParamLength: 16 * 1024 },
    clientErrorHandler: answerClientError,
    // While draining, a request that reached this replica on an open connection is served (with
    // Connection: close), not refused: Kubernetes keeps established connections to a terminating pod.
    return503OnClosing: false,
  });
  app.decorate('services', services);
  // Opened with the app (ready), so a port that is taken stops the start-up; closed with it.
  const metricsListener = new MetricsListener(metrics.registry, logger);
  app.decorate('metricsUrl', { getter: () => metricsListener.url });
  app.addHook('onReady', () => metricsListener.listen(config.METRICS_HOST ?? config.HOST, config.METRICS_PORT));
  // First: a GET the in-process cache answers runs no other hook, as in the hot lane.
  await app.register(catalogCache, { parts: cacheParts, hits: cacheHits });
  installRequestLog(app);
  installCommonHeaders(app, lifecycle);
  installGracefulClose(app, lifecycle);
  await installCors(app, cors);
  installValidators(app);
  installUtf8JsonParser(app);
  const failures = new FailureLog(logger, deps.failureSummaryMs);
  installErrorHandler(app, failures);
  installMethodNotAllowed(app);
  installHttpMetrics(app, metrics);
  await installOpenApi(app);

  await app.register(healthRoutes(db));
  await app.register(productReadRoutes(services));
  await app.register(productWriteRoutes(services));
  await app.register(graphqlRoute(services));
  if (config.GRAPHQL_IDE) await app.register(graphqlIde);

  app.addHook('onClose', async () => {
    await metricsListener.close();
    await catalogSwaps.close();
    await db.close();
    failures.stop();
  });
  return app;
}

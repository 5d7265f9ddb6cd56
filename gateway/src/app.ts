import type { ApolloServerPlugin } from '@apollo/server';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { createCache, tagVersionTtlMs } from './cache/create-cache.js';
import { PersistedQueryStore } from './cache/persisted-query-store.js';
import { followChangeCapture } from './capture/change-capture.js';
import { coherenceSink } from './capture/coherence-sink.js';
import { createEdgePurger, purgeTargetsOf } from './cdn/create-edge-purger.js';
import { PurgeAfterWrites } from './cdn/purge-after-writes.js';
import { startCoherence } from './coherence/coherence.js';
import type { Config } from './config.js';
import { listenForCatalogSwaps } from './db/catalog-swaps.js';
import { createReadTargets, targetNames } from './db/read-targets.js';
import type { GraphQLContext } from './graphql/context.js';
import { graphqlIde } from './graphql/ide.js';
import { graphqlRoute } from './graphql/route.js';
import { loadTrustedDocuments } from './graphql/trusted-documents.js';
import { healthRoutes } from './health/routes.js';
import { CatalogEvents } from './events/catalog-events.js';
import { installDraining, type Lifecycle } from './http/common-headers.js';
import { installGracefulClose } from './http/graceful-close.js';
import { CorsPolicy, installCors } from './http/cors.js';
import { createRequestIds } from './http/request-ids.js';
import { formatValidationError, installErrorHandler } from './http/error-handler.js';
import { answerClientError } from './http/client-errors.js';
import { installUtf8JsonParser } from './http/json-body.js';
import { installMethodNotAllowed } from './http/method-not-allowed.js';
import { FailureLog } from './http/failure-log.js';
import { installOpenApi } from './http/openapi.js';
import { parseQueryString } from './http/query-string.js';
import { installRequestLog } from './http/request-log.js';
import { serverTimeouts } from './http/server-timeouts.js';
import { installValidators } from './http/validators.js';
import { installHttpMetrics } from './metrics/http-metrics.js';
import { createClientLimits } from './limits/client-limits.js';
import {
  cacheReportInto,
  coherenceReportInto,
  createMetrics,
  edgePurgeReportInto,
  limitsReportInto,
  observePools,
  observeReadTargets,
  readTargetReportInto,
  redisReportInto,
} from './metrics/metrics.js';
import { MetricsListener } from './metrics/metrics-listener.js';
import { createSharedBatchers, type BatchObserver } from './loaders/shared-batchers.js';
import { ProductPager } from './paging/product-pager.js';
import { CacheLookup } from './pipeline/cache-lookup.js';
import { EdgeAccounting } from './pipeline/edge-accounting.js';
import { FrontDoor } from './pipeline/front-door.js';
import { ResponseWriter } from './pipeline/response-writer.js';
import { createRepositories } from './repository/index.js';
import { productReadRoutes } from './rest/product-read-routes.js';
import { productWriteRoutes } from './rest/product-write-routes.js';
import type { Services } from './services.js';
import { connectSharedRedis, redisSettingsOf } from './redis/shared-redis.js';
import { tracingServer } from './telemetry/request-spans.js';
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
  /**
   * Apollo Server plugins of your own: they see every GraphQL operation, executed or answered from
   * the response cache, over GET and POST, with or without errors (gateway/README.md, "How it works").
   */
  graphqlPlugins?: ApolloServerPlugin<GraphQLContext>[];
}

/** How long start-up waits for Redis to let this process join the coherence clock (then it serves without). */
const JOIN_TIMEOUT_MS = 2_000;

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
  // The primary, and the streaming replicas reads may use: a pool, batchers and repositories each.
  const readReport = readTargetReportInto(metrics, targetNames(config));
  const observeBatch: BatchObserver = (loader, size) => metrics.dataloaderBatchSize.observe({ loader }, size);
  const reads = createReadTargets(
    { ...config, DATABASE_URL: config.DATABASE_URL },
    {
      report: readReport,
      readersOf: (db) => {
        const repositories = createRepositories(db);
        return { repositories, batchers: createSharedBatchers(repositories, observeBatch) };
      },
      onAdmissionReject: (reason) => metrics.dbAdmissionRejections.inc({ reason }),
      logger,
    },
  );
  observePools(metrics, [reads.primary.db, ...reads.replicas.map((replica) => replica.db)]);
  observeReadTargets(metrics, reads, config.DATABASE_READ_MAX_LAG_MS);
  const { db, repositories } = reads.primary;
  // What happens to the catalog (writes, catalog swaps, changes heard from other replicas):
  // the response cache and the pager each subscribe.
  const events = new CatalogEvents();
  const pager = new ProductPager(repositories.products, events);
  const redisSettings = redisSettingsOf(config);
  const redis = redisSettings ? connectSharedRedis(redisSettings, redisReportInto(metrics), logger) : undefined;
  // The shared caches in front of the fleet (Varnish, a CDN): purged once per change, by whoever made it.
  const purgeTargets = purgeTargetsOf(config);
  const edgePurger = createEdgePurger(
    config,
    purgeTargets,
    edgePurgeReportInto(
      metrics,
      purgeTargets.map((target) => target.name),
    ),
    logger,
  );
  const coherence = startCoherence({
    events,
    redis,
    reads,
    onFallback: (reason) => readReport.fallback(reason),
    writeWaitMs: config.REDIS_WRITE_WAIT_MS,
    versionTtlMs: tagVersionTtlMs(config.CACHE_TTL_SECONDS),
    report: coherenceReportInto(metrics),
    logger,
    edgePurger,
  });
  const cache = createCache(config, {
    events,
    coherence,
    redis,
    report: cacheReportInto(metrics),
    logger,
    sharedCachesPurged: edgePurger.purging,
  });
  await coherence.joined(JOIN_TIMEOUT_MS);
  const catalogSwaps = listenForCatalogSwaps(config.DATABASE_URL, events, logger);
  // Every change, the gateway's writes and those captured from Postgres, is purged from the shared caches once it is through.
  const writes = new PurgeAfterWrites(coherence.writes, edgePurger);
  // Changes made outside the gateway (rule 11).
  const capture = followChangeCapture({
    url: config.DATABASE_URL,
    sink: coherenceSink(writes, events),
    logger,
    onAnnounced: (kind, delays) => {
      metrics.captureEntries.inc({ kind }, delays.length);
      for (const delay of delays) metrics.captureDelay.observe(delay);
    },
    onFailure: (operation) => metrics.captureFailures.inc({ operation }),
  });
  const lifecycle: Lifecycle = { closing: false };
  const requestIdOf = createRequestIds();
  const cors = new CorsPolicy(config.CORS_ORIGINS, config.CORS_CREDENTIALS);
  const limits = createClientLimits(config, redis, limitsReportInto(metrics), logger);
  const lookup = new CacheLookup(cache);
  const writer = new ResponseWriter(lifecycle, cors);
  const frontDoor = new FrontDoor(lookup, writer, new EdgeAccounting(metrics, logger), requestIdOf, limits);
  const pipeline = { frontDoor, lookup, writer };
  const services: Services = {
    config,
    db,
    repositories,
    reads,
    pager,
    cache,
    pipeline,
    persistedQueries: new PersistedQueryStore(redis, config.GRAPHQL_APQ_TTL_SECONDS),
    writes: new ProductWrites(repositories.products, writes),
    edgePurger,
    metrics,
    limits,
  };

  const app = Fastify({
    serverFactory: tracingServer(frontDoor.server(serverTimeouts(config))),
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Request lines come from installRequestLog (one per request instead of two).
    logController: new LogController({ disableRequestLogging: true }),
    // The front door makes every request's id, with its record.
    requestIdHeader: false,
    genReqId: frontDoor.requestIdFor,
    schemaErrorFormatter: formatValidationError,
    // Longer than any URL Node accepts (its 16 KiB header limit answers 431 first), so an overlong
    // id is the route's 400 naming the parameter, not the router's 414 of its own 100-character limit.
    // Query values whose percent-encoding is not UTF-8 are marked, to be refused, not read as `%FF`.
    routerOptions: { maxParamLength: 16 * 1024, querystringParser: parseQueryString },
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
  // First: every request's record, and a client over its limit gets nothing else.
  frontDoor.install(app);
  app.addHook('onClose', async () => services.limits.close());
  installRequestLog(app);
  installDraining(app, lifecycle);
  installGracefulClose(app, lifecycle);
  await installCors(app, cors);
  installValidators(app);
  installUtf8JsonParser(app);
  const failures = new FailureLog(logger, deps.failureSummaryMs);
  const respond = writer.respond.bind(writer);
  installErrorHandler(app, failures, respond);
  installMethodNotAllowed(app, respond);
  installHttpMetrics(app, metrics);
  await installOpenApi(app);

  await app.register(healthRoutes(lifecycle, writer));
  await app.register(productReadRoutes(services));
  await app.register(productWriteRoutes(services));
  await app.register(graphqlRoute(services, trustedDocuments, deps.graphqlPlugins ?? []));
  if (config.GRAPHQL_IDE) await app.register(graphqlIde);

  app.addHook('onClose', async () => {
    await metricsListener.close();
    coherence.stop();
    await Promise.all([cache.settled(), services.persistedQueries.settled(), edgePurger.close()]);
    await Promise.all([catalogSwaps.close(), capture.close()]);
    await redis?.close();
    await reads.close();
    failures.stop();
  });
  return app;
}

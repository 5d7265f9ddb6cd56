import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type RegistryContentType } from 'prom-client';
import type pg from 'pg';
import type { CacheReport } from '../cache/cache-report.js';
import { CACHE_LOOKUPS, CacheHitRecorder } from './cache-hit-recorder.js';
import { exemplarsKept } from './exemplars.js';
import type { CoherenceReport } from '../coherence/coherence.js';
import type { CircuitState, RedisReport } from '../redis/breaker.js';
import type { PurgeQueueReports } from '../cdn/purge-queue.js';
import type { ReadFallback, ReadTargetReport, ReadTargets, TargetFailure } from '../db/read-targets.js';
import type { LimitsReport } from '../limits/limits-report.js';

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500];
const READ_FALLBACKS: ReadFallback[] = [
  'none_in_rotation',
  'left_rotation',
  'replica_failed',
  'another_server',
  'behind_writes',
  'server_changed',
  'no_lease',
];
const TARGET_FAILURES: TargetFailure[] = ['statement', 'connection', 'poll'];

/**
 * Every metric the gateway exposes, in its own registry (tests run several gateways in one
 * process). Names and labels are a contract with the dashboards, alert rules and k6 checks.
 */
export function createMetrics() {
  const registry = new Registry();
  // prom-client keeps exemplars only in a registry made for OpenMetrics (metrics/exposition.ts renders both formats).
  if (exemplarsKept()) (registry as Registry<RegistryContentType>).setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // Collecting the metrics the front door feeds folds in its pending hits first.
  const flushCacheHits = (): void => cacheHitRecorder.flush();
  const httpRequests = new Counter({
    name: 'catalog_http_requests_total',
    help: 'HTTP requests by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers,
    collect: flushCacheHits,
  });
  const httpDuration = new Histogram({
    name: 'catalog_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: DURATION_BUCKETS,
    enableExemplars: exemplarsKept(),
    registers,
    collect: flushCacheHits,
  });
  const cacheLookups = new Counter({
    name: 'catalog_cache_lookups_total',
    help: 'Response cache lookups by backend (redis|memory) and result (hit|miss)',
    labelNames: ['backend', 'result'] as const,
    registers,
    collect: flushCacheHits,
  });
  const cacheHitRecorder = new CacheHitRecorder({ httpRequests, httpDuration, cacheLookups });
  return {
    registry,
    httpRequests,
    httpDuration,
    cacheLookups,
    cacheHitRecorder,
    graphqlOperations: new Counter({
      name: 'catalog_graphql_operations_total',
      help: 'GraphQL operations by name, type and outcome (success|error)',
      labelNames: ['operation_name', 'operation_type', 'outcome'] as const,
      registers,
    }),
    graphqlDuration: new Histogram({
      name: 'catalog_graphql_operation_duration_seconds',
      help: 'GraphQL operation duration by name and type',
      labelNames: ['operation_name', 'operation_type'] as const,
      buckets: DURATION_BUCKETS,
      enableExemplars: exemplarsKept(),
      registers,
    }),
    graphqlDocumentParses: new Counter({
      name: 'catalog_graphql_document_parses_total',
      help: 'GraphQL documents parsed: once per distinct query string while remembered (a rising rate means clients send ever-new documents)',
      registers,
    }),
    graphqlPersistedQueries: new Counter({
      name: 'catalog_graphql_persisted_queries_total',
      help: 'Persisted-query requests (APQ hash or trusted-document id) by result: hit, miss (PERSISTED_QUERY_NOT_FOUND), registered, refused (a 400, or PERSISTED_QUERY_NOT_SUPPORTED with APQ off)',
      labelNames: ['result'] as const,
      registers,
    }),
    dbAdmissionRejections: new Counter({
      name: 'catalog_db_admission_rejections_total',
      help: 'Statements refused at once (503) because the database queue was full or its expected wait too long',
      labelNames: ['reason'] as const,
      registers,
    }),
    redisCircuitState: new Gauge({
      name: 'catalog_redis_circuit_state',
      help: 'Circuit breaker in front of Redis: 0 closed (in use), 1 open (skipped), 2 half-open (probing)',
      registers,
    }),
    redisCircuitRejections: new Counter({
      name: 'catalog_redis_circuit_rejections_total',
      help: 'Redis cache calls skipped because the circuit was open',
      registers,
    }),
    cacheErrors: new Counter({
      name: 'catalog_cache_errors_total',
      help: 'Response cache operations that failed (Redis down or slow) and were served without the cache',
      labelNames: ['backend', 'operation'] as const,
      registers,
    }),
    coherenceResets: zeroed(
      new Counter({
        name: 'catalog_coherence_resets_total',
        help: 'Times this process dropped everything it kept because invalidations may have been missed, by reason: lost (Redis restarted empty, was flushed or evicted the clock), failover (another Redis server took over: a promoted replica, a restart from a snapshot), swap (a catalog swap), protocols (releases of another coherence protocol beside it are gone: what was kept before is void), gap (a message it never heard)',
        labelNames: ['reason'] as const,
        registers,
      }),
      ['lost', 'failover', 'swap', 'protocols', 'gap'],
    ),
    coherenceAckWait: new Histogram({
      name: 'catalog_coherence_write_ack_wait_seconds',
      help: 'How long a write waited, after its confirm, for every gateway replica to process it or lose its lease',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    captureEntries: zeroed(
      new Counter({
        name: 'catalog_capture_entries_total',
        help: 'Entries of the change log (changes made outside the gateway) this process claimed and announced, by kind: changes (named products), everything (a new epoch: the log overflowed, a TRUNCATE, a bulk statement)',
        labelNames: ['kind'] as const,
        registers,
      }),
      ['changes', 'everything'],
    ),
    captureDelay: new Histogram({
      name: 'catalog_capture_delay_seconds',
      help: 'From the end of a statement made outside the gateway to every gateway replica having let go of what it replaced, for the entries this process announced',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    captureFailures: zeroed(
      new Counter({
        name: 'catalog_capture_failures_total',
        help: 'Change log operations that failed, by operation (connect, claim: the entries stay in the log and are claimed again)',
        labelNames: ['operation'] as const,
        registers,
      }),
      ['connect', 'claim'],
    ),
    cacheSharedStores: zeroed(
      new Counter({
        name: 'catalog_cache_shared_stores_total',
        help: 'Responses offered to Redis by result: stored, refused (a tag changed or is being written since the read began, or a new epoch), full (the tag holds its most entries), too_large',
        labelNames: ['result'] as const,
        registers,
      }),
      ['stored', 'refused', 'full', 'too_large'],
    ),
    edgePurgeQueueTags: new Gauge({
      name: 'catalog_edge_purge_queue_tags',
      help: 'Tags waiting to be purged from a shared cache, by target (a waiting purge of everything counts one)',
      labelNames: ['target'] as const,
      registers,
    }),
    edgePurgeRequests: new Counter({
      name: 'catalog_edge_purge_requests_total',
      help: 'Purge requests to shared caches by target and result: sent (the target took it), failed (refused, timed out or unreachable: retried with backoff)',
      labelNames: ['target', 'result'] as const,
      registers,
    }),
    edgePurgeLatency: new Histogram({
      name: 'catalog_edge_purge_latency_seconds',
      help: 'From the first request to purge a tag (a change) to the shared cache taking the purge, by target; retries included',
      labelNames: ['target'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    edgePurgeOverflows: new Counter({
      name: 'catalog_edge_purge_overflows_total',
      help: 'Times a purge queue was full and turned into one purge of every catalog response, by target',
      labelNames: ['target'] as const,
      registers,
    }),
    dbStatements: new Counter({
      name: 'catalog_db_statements_total',
      help: 'SQL statements sent, by database target (primary, replica-1, …); a statement a replica could not serve counts there and again on the primary',
      labelNames: ['target'] as const,
      registers,
    }),
    dbTargetFailures: new Counter({
      name: 'catalog_db_target_failures_total',
      help: 'Failures of a database target that say it is down, unreachable or stalled, by target and by what failed: a statement, an idle pooled connection, a WAL position poll',
      labelNames: ['target', 'operation'] as const,
      registers,
    }),
    dbReplicaFallbacks: zeroed(
      new Counter({
        name: 'catalog_db_replica_fallbacks_total',
        help: 'Reads sent to the primary instead of a replica, by reason: none_in_rotation (a request given the primary, per request), left_rotation (a statement whose replica left the rotation after it was picked), replica_failed (a statement re-run on the primary after its replica failed it), another_server (a statement whose pooled connection reached another server than the one the replica positions are polled on: a load-balanced address), behind_writes (a response read again on the primary: its replica had not replayed a write it depends on, or failed it), server_changed (a response read again on the primary: the replica polls moved to another server while it was read), no_lease (a request made while this process held no coherence lease, per request)',
        labelNames: ['reason'] as const,
        registers,
      }),
      READ_FALLBACKS,
    ),
    rateLimited: new Counter({
      name: 'catalog_rate_limited_requests_total',
      help: 'Requests refused with 429 because the client was over its limit, by client class (api-key, bearer, ip), configured client name and policy (requests, graphql-cost)',
      labelNames: ['client_class', 'client', 'policy'] as const,
      registers,
    }),
    rateLimitSyncs: new Counter({
      name: 'catalog_rate_limit_syncs_total',
      help: "Syncs of this replica's rate-limit counts with Redis by result: ok, failed (Redis did not answer in time or refused), skipped (circuit open)",
      labelNames: ['result'] as const,
      registers,
    }),
    dataloaderBatchSize: new Histogram({
      name: 'catalog_dataloader_batch_size',
      help: 'Keys per DataLoader batch, by loader',
      labelNames: ['loader'] as const,
      buckets: BATCH_SIZE_BUCKETS,
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** A counter with a series at 0 for each of its (bounded) label values, so dashboards and alerts see them before the first event. */
function zeroed<Label extends string>(counter: Counter<Label>, values: readonly string[]): Counter<Label> {
  for (const value of values) counter.labels(value).inc(0);
  return counter;
}

/** Gauge values of catalog_redis_circuit_state. */
const CIRCUIT_STATE: Record<CircuitState, number> = { closed: 0, open: 1, halfOpen: 2 };

/** The response cache's lookups (batched with the front door's hits) and shared stores into these metrics. */
export function cacheReportInto(metrics: Metrics): CacheReport {
  return {
    lookup: (backend, result) => metrics.cacheHitRecorder.countLookup(CACHE_LOOKUPS[backend][result]),
    sharedStore: (result) => metrics.cacheSharedStores.inc({ result }),
  };
}

/** Redis's failures and circuit, as the redis layer reports them, into these metrics. */
export function redisReportInto(metrics: Metrics): RedisReport {
  return {
    failed: (operation) => metrics.cacheErrors.inc({ backend: 'redis', operation }),
    circuit: (state) => metrics.redisCircuitState.set(CIRCUIT_STATE[state]),
    rejected: () => metrics.redisCircuitRejections.inc(),
  };
}

/** Coherence's resets, write waits and lease, as the coherence layer reports them, into these metrics. */
export function coherenceReportInto(metrics: Metrics): CoherenceReport {
  return {
    reset: (reason) => metrics.coherenceResets.inc({ reason }),
    ackWait: (seconds) => metrics.coherenceAckWait.observe(seconds),
    lease: (held) =>
      gaugeReadAtScrape(
        metrics,
        'catalog_coherence_lease_held',
        '1 while this process holds its coherence lease (its in-process cache is served and replicas are read), 0 while it cannot reach Redis or serves beside another coherence protocol',
        () => (held() ? 1 : 0),
      ),
    otherProtocols: (count) =>
      gaugeReadAtScrape(
        metrics,
        'catalog_coherence_other_protocols',
        'Releases of other coherence protocols live on the same Redis (a rolling update across protocols): while above 0, nothing cached is served and every read goes to the primary',
        count,
      ),
  };
}

/**
 * The edge purge queues' reports into these metrics; the request series start at 0 for each
 * configured target, as the alert on failing purges compares failures with successes.
 */
export function edgePurgeReportInto(metrics: Metrics, targets: readonly string[]): PurgeQueueReports {
  for (const target of targets) {
    for (const result of ['sent', 'failed'] as const) metrics.edgePurgeRequests.inc({ target, result }, 0);
  }
  return {
    depth: (target, tags) => metrics.edgePurgeQueueTags.set({ target }, tags),
    request: (target, result) => metrics.edgePurgeRequests.inc({ target, result }),
    latency: (target, seconds) => metrics.edgePurgeLatency.observe({ target }, seconds),
    overflow: (target) => metrics.edgePurgeOverflows.inc({ target }),
  };
}

/**
 * The database targets' statements, failures and fallbacks into these metrics; every target's
 * failure series starts at 0 (the names come from the configuration: a bounded label).
 */
export function readTargetReportInto(metrics: Metrics, targetNames: readonly string[]): ReadTargetReport {
  for (const target of targetNames) for (const operation of TARGET_FAILURES) metrics.dbTargetFailures.inc({ target, operation }, 0);
  const statementsOf = new Map(targetNames.map((target) => [target, metrics.dbStatements.labels(target)]));
  return {
    statement: (target) => statementsOf.get(target)?.inc(),
    failure: (target, operation) => metrics.dbTargetFailures.inc({ target, operation }),
    fallback: (reason) => metrics.dbReplicaFallbacks.inc({ reason }),
  };
}

/** The rate limits' refusals, syncs and clients counted into these metrics. */
export function limitsReportInto(metrics: Metrics): LimitsReport {
  return {
    limited: (labels, policy) => metrics.rateLimited.inc({ ...labels, policy }),
    synced: (result) => metrics.rateLimitSyncs.inc({ result }),
    counting: (clients) =>
      gaugeReadAtScrape(
        metrics,
        'catalog_rate_limit_clients',
        'Clients this replica has counted in the current rate-limit window',
        clients,
      ),
  };
}

/** A gauge of one value read at scrape time. */
function gaugeReadAtScrape(metrics: Metrics, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers: [metrics.registry],
    collect() {
      this.set(read());
    },
  });
}

/** Pool gauges read each database target's pool counters at scrape time. */
export function observePools(metrics: Metrics, targets: readonly { name: string; pool: pg.Pool }[]): void {
  new Gauge({
    name: 'catalog_db_pool_clients',
    help: 'Postgres pool clients by database target (primary, replica-1, …) and state (total|idle|in_use)',
    labelNames: ['target', 'state'] as const,
    registers: [metrics.registry],
    collect() {
      for (const { name: target, pool } of targets) {
        this.set({ target, state: 'total' }, pool.totalCount);
        this.set({ target, state: 'idle' }, pool.idleCount);
        this.set({ target, state: 'in_use' }, pool.totalCount - pool.idleCount);
      }
    },
  });
  new Gauge({
    name: 'catalog_db_pool_waiting_requests',
    help: 'Requests waiting for a Postgres pool client, by database target',
    labelNames: ['target'] as const,
    registers: [metrics.registry],
    collect() {
      for (const { name: target, pool } of targets) this.set({ target }, pool.waitingCount);
    },
  });
}

/** The database targets' replay lag and rotation, read at scrape time. */
export function observeReadTargets(metrics: Metrics, targets: ReadTargets, maxLagMs: number): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'catalog_db_replay_lag_seconds',
    help: 'How long ago the primary was at the position the target has replayed to (0: it has everything the primary wrote; the primary is always 0)',
    labelNames: ['target'] as const,
    registers,
    collect() {
      const now = performance.now();
      this.set({ target: targets.primary.name }, 0);
      for (const replica of targets.replicas) {
        const lagMs = replica.health.lagMs(now);
        if (lagMs !== undefined) this.set({ target: replica.name }, lagMs / 1_000);
      }
    },
  });
  new Gauge({
    name: 'catalog_db_replay_lag_bound_seconds',
    help: 'DATABASE_READ_MAX_LAG_MS: a replica lagging more leaves the rotation',
    registers,
    collect() {
      this.set(maxLagMs / 1_000);
    },
  });
  new Gauge({
    name: 'catalog_db_in_rotation',
    help: 'Whether reads that may use a replica are sent to the target: 1 for each replica in the rotation; 1 for the primary when no replica is (or none is configured)',
    labelNames: ['target'] as const,
    registers,
    collect() {
      const now = performance.now();
      let replicasIn = 0;
      for (const replica of targets.replicas) {
        const inRotation = replica.inRotation(now);
        if (inRotation) replicasIn += 1;
        this.set({ target: replica.name }, inRotation ? 1 : 0);
      }
      this.set({ target: targets.primary.name }, replicasIn === 0 ? 1 : 0);
    },
  });
}

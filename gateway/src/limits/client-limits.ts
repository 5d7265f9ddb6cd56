import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { SharedRedis } from '../redis/shared-redis.js';
import type { Config } from '../config.js';
import { addCommonHeaders, type Lifecycle } from '../http/common-headers.js';
import type { CorsPolicy } from '../http/cors.js';
import type { RequestIdOf } from '../http/request-ids.js';
import { ClientIdentities, type Client } from './client-identity.js';
import { NetworkSet } from './ip-networks.js';
import { LimitPolicies, type ClientPolicy } from './limit-policies.js';
import { costRefusal, requestsRefusal, type Refusal } from './limit-refusals.js';
import { createLimitsMetrics, type LimitsMetrics } from './limits-metrics.js';
import { COST_POLICY, limitItem, RATELIMIT_FIELD, REQUESTS_POLICY, type PolicyName } from './ratelimit-fields.js';
import { RedisCounterSync } from './redis-sync.js';
import { WindowCounters, type ClientUsage } from './window-counters.js';

/**
 * Per-client limits as the rest of the gateway sees them: one check per request at the edge,
 * one charge per GraphQL operation in its route.
 */
export interface ClientLimits {
  readonly enabled: boolean;
  /**
   * Counts a request against its client's request quota. Over the quota it writes the 429 itself
   * and returns false: the caller answers nothing more. Synchronous: it never waits for Redis.
   * Once per request: the hot lane asks for the requests it answers, or looks up in Redis;
   * Fastify's hook (`admitRouted`) for every other one.
   */
  admit(request: IncomingMessage, response: ServerResponse): boolean;
  /** Marks a request the hot lane admitted and then hands on to Fastify (a Redis miss), whose hook passes it at once. */
  handOn(request: IncomingMessage): void;
  /** `admit` in Fastify's hook, for the requests the hot lane did not hand on. */
  admitRouted(request: IncomingMessage, response: ServerResponse): boolean;
  /**
   * Charges a GraphQL operation's cost to its client's budget; the 429 to send when it does not
   * fit (nothing charged then). Undefined cost (the operation could not be costed): nothing charged.
   */
  chargeGraphQLCost(request: IncomingMessage, response: ServerResponse, cost: number | undefined): Refusal | undefined;
  close(): void;
}

/** Limits off (the default): everything passes, nothing is counted. */
const UNLIMITED: ClientLimits = {
  enabled: false,
  admit: () => true,
  handOn: () => {},
  admitRouted: () => true,
  chargeGraphQLCost: () => undefined,
  close: () => {},
};

/** What a 429 written at the edge carries besides its own headers, as every other answer does. */
export interface EdgeResponses {
  cors: CorsPolicy;
  requestIdOf: RequestIdOf;
  lifecycle: Lifecycle;
}

/** Probes and scrapes are never limited: a kubelet or Prometheus behind a busy address must still get through. */
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
/** Only URLs this short are looked up: hashing every request's fresh URL string was a third of the check. */
const LONGEST_UNLIMITED_PATH = Math.max(...[...UNLIMITED_PATHS].map((path) => path.length));

/**
 * A response carries the RateLimit fields once its client has used this share of a quota (and
 * every 429 does). Below it a client has no pacing to do, and two headers set on an answer the hot
 * lane writes from a ready-made list make Node merge header sets: ten times the cost of the check,
 * a quarter of a cached answer's. The draft allows it ("Performance Considerations").
 */
const FIELDS_FROM_SHARE_USED = 0.5;

export function createClientLimits(
  config: Config,
  redis: SharedRedis | undefined,
  registry: Registry,
  logger: Logger,
  edge: EdgeResponses,
): ClientLimits {
  return config.RATE_LIMIT_ENABLED ? new WindowLimits(config, redis, registry, logger, edge) : UNLIMITED;
}

/**
 * Fixed-window quotas per client, counted in this process and shared through Redis in the
 * background (RedisCounterSync): admission reads and bumps local counters only, so it costs a
 * cached answer a map lookup, and a sick Redis costs requests nothing.
 */
class WindowLimits implements ClientLimits {
  readonly enabled = true;
  private readonly identities: ClientIdentities;
  private readonly counters: WindowCounters;
  private readonly windowSeconds: number;
  private readonly metrics: LimitsMetrics;
  private readonly sync: RedisCounterSync | undefined;
  /**
   * Requests the hot lane admitted and handed on after a Redis miss, until Fastify's hook sees
   * them. Only those: a mark on every request (a WeakSet entry, or a property) cost a cached
   * answer more than the rest of the check, and a property on some requests only gives their
   * objects another shape than the others', which slows Node's HTTP code for all of them.
   */
  private readonly handedOn = new WeakSet<IncomingMessage>();

  constructor(
    config: Config,
    redis: SharedRedis | undefined,
    /** Where the limits' own metrics (limits-metrics.ts) are registered. */
    registry: Registry,
    private readonly logger: Logger,
    private readonly edge: EdgeResponses,
  ) {
    this.windowSeconds = config.RATE_LIMIT_WINDOW_SECONDS;
    const policies = new LimitPolicies(config.RATE_LIMIT_CLIENTS, {
      requests: config.RATE_LIMIT_REQUESTS,
      graphqlCost: config.RATE_LIMIT_GRAPHQL_COST,
      windowSeconds: this.windowSeconds,
    });
    this.identities = new ClientIdentities(
      config.RATE_LIMIT_CLIENTS.clients,
      policies,
      config.RATE_LIMIT_API_KEY_HEADER,
      new NetworkSet(config.RATE_LIMIT_TRUSTED_PROXIES),
    );
    this.counters = new WindowCounters(this.windowSeconds * 1_000);
    this.metrics = createLimitsMetrics(registry, () => this.counters.size);
    this.sync = redis && new RedisCounterSync(redis, this.counters, config.RATE_LIMIT_SYNC_MS, this.metrics, logger);
    if (!redis) logger.info('rate limits: no REDIS_URL, so each replica counts its own requests');
  }

  admit(request: IncomingMessage, response: ServerResponse): boolean {
    const url = request.url!;
    if (url.length <= LONGEST_UNLIMITED_PATH && UNLIMITED_PATHS.has(url)) return true;
    const client = this.identities.identify(request);
    const policy = client.policy;
    if (!policy) return true;
    const now = Date.now();
    const usage = this.counters.usageOf(client, now);
    if (this.counters.takeRequest(usage, policy.requests)) {
      this.announce(response, policy, usage, now);
      return true;
    }
    const refusal = requestsRefusal(url, this.refusalState(policy, usage, now));
    this.refused(client, policy, usage, REQUESTS_POLICY);
    const headers: OutgoingHttpHeader[] = Object.entries(refusal.headers).flat();
    headers.push('content-length', Buffer.byteLength(refusal.body));
    addCommonHeaders(headers, this.edge.requestIdOf(request), this.edge.lifecycle);
    response.writeHead(refusal.status, this.edge.cors.addTo(headers, request.headers.origin));
    response.end(refusal.body);
    return false;
  }

  handOn(request: IncomingMessage): void {
    this.handedOn.add(request);
  }

  admitRouted(request: IncomingMessage, response: ServerResponse): boolean {
    return this.handedOn.delete(request) || this.admit(request, response);
  }

  chargeGraphQLCost(request: IncomingMessage, response: ServerResponse, cost: number | undefined): Refusal | undefined {
    if (cost === undefined) return undefined;
    const client = this.identities.identify(request);
    const policy = client.policy;
    if (!policy) return undefined;
    const now = Date.now();
    const usage = this.counters.usageOf(client, now);
    const remaining = Math.max(0, policy.graphqlCost - usage.cost);
    if (this.counters.takeCost(usage, cost, policy.graphqlCost)) {
      this.announce(response, policy, usage, now);
      return undefined;
    }
    this.refused(client, policy, usage, COST_POLICY);
    return costRefusal(cost, remaining, this.refusalState(policy, usage, now));
  }

  close(): void {
    this.sync?.stop();
  }

  /** RateLimit: what remains of each quota, and when the window ends; RateLimit-Policy: the quotas. */
  private rateLimitField(policy: ClientPolicy, usage: ClientUsage, now: number): string {
    const secondsLeft = this.counters.secondsLeft(now);
    return (
      `${limitItem(REQUESTS_POLICY, Math.max(0, policy.requests - usage.requests), secondsLeft)}, ` +
      limitItem(COST_POLICY, Math.max(0, policy.graphqlCost - usage.cost), secondsLeft)
    );
  }

  /** Sets the RateLimit fields on an admitted answer once its client has used enough of a quota to pace itself. */
  private announce(response: ServerResponse, policy: ClientPolicy, usage: ClientUsage, now: number): void {
    const paced = usage.requests >= policy.requests * FIELDS_FROM_SHARE_USED || usage.cost >= policy.graphqlCost * FIELDS_FROM_SHARE_USED;
    if (!paced) return;
    response.setHeader(RATELIMIT_FIELD, this.rateLimitField(policy, usage, now));
    response.setHeader('ratelimit-policy', policy.field);
  }

  private refusalState(policy: ClientPolicy, usage: ClientUsage, now: number) {
    return {
      policy,
      windowSeconds: this.windowSeconds,
      rateLimitField: this.rateLimitField(policy, usage, now),
      secondsLeft: this.counters.secondsLeft(now),
    };
  }

  /** Counts a refusal; logs a client's first one in a window (an address is logged, a key or token never). */
  private refused(client: Client, clientPolicy: ClientPolicy, usage: ClientUsage, policy: PolicyName): void {
    this.metrics.limited.inc({ ...clientPolicy.labels, policy });
    if (usage.refusalLogged) return;
    usage.refusalLogged = true;
    this.logger.info(
      { client: client.name ?? client.key, clientClass: client.clientClass, policy },
      'client over its rate limit: refused until the window ends',
    );
  }
}

/**
 * The check in Fastify's request hooks, for requests the hot lane did not count: those it hands
 * on without asking Redis, and those it never saw (`inject`). Install first, so a refused request
 * runs no other hook but the response ones (its log line and metrics).
 */
export function installClientLimits(app: FastifyInstance, limits: ClientLimits): void {
  if (!limits.enabled) return;
  app.addHook('onRequest', (request, reply, done) => {
    if (limits.admitRouted(request.raw, reply.raw)) return done();
    reply.hijack();
  });
  app.addHook('onClose', async () => limits.close());
}

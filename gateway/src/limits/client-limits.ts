import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { SharedRedis } from '../redis/shared-redis.js';
import type { Config } from '../config.js';
import { ClientIdentities, type Client } from './client-identity.js';
import { NetworkSet } from './ip-networks.js';
import { LimitPolicies, type ClientPolicy } from './limit-policies.js';
import { costRefusal, requestsRefusal, type Refusal } from './limit-refusals.js';
import type { LimitsReport } from './limits-report.js';
import { COST_POLICY, limitItem, REQUESTS_POLICY, type PolicyName } from './ratelimit-fields.js';
import { RedisCounterSync } from './redis-sync.js';
import { WindowCounters, type ClientUsage } from './window-counters.js';

/**
 * What the limits note on a request's record (pipeline/request-record.ts): the client they
 * identified, so a GraphQL charge does not identify it again, and the RateLimit fields its answer
 * carries (the response writer adds them).
 */
export interface AdmittedRequest {
  client: Client | undefined;
  rateLimit: string | undefined;
  rateLimitPolicy: string | undefined;
}

/**
 * Per-client limits as the rest of the gateway sees them: one check per request at the front
 * door, one charge per GraphQL operation. Both return the 429 to write, never write it.
 */
export interface ClientLimits {
  readonly enabled: boolean;
  /**
   * Counts a request against its client's request quota, once, at the front door: the 429 to
   * answer when it is over. Synchronous: it never waits for Redis.
   */
  admit(request: IncomingMessage, admitted: AdmittedRequest): Refusal | undefined;
  /**
   * Charges a GraphQL operation's cost to its client's budget; the 429 to send when it does not
   * fit (nothing charged then). Undefined cost (the operation could not be costed): nothing charged.
   */
  chargeGraphQLCost(request: IncomingMessage, admitted: AdmittedRequest, cost: number | undefined): Refusal | undefined;
  close(): void;
}

/** Limits off (the default): everything passes, nothing is counted. */
const UNLIMITED: ClientLimits = {
  enabled: false,
  admit: () => undefined,
  chargeGraphQLCost: () => undefined,
  close: () => {},
};

/** Probes and scrapes are never limited: a kubelet or Prometheus behind a busy address must still get through. */
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);
/** Only URLs this short are looked up: hashing every request's fresh URL string was a third of the check. */
const LONGEST_UNLIMITED_PATH = Math.max(...[...UNLIMITED_PATHS].map((path) => path.length));

/**
 * A response carries the RateLimit fields once its client has used this share of a quota (and
 * every 429 does). Below it a client has no pacing to do, and a cached answer carrying them is
 * personalised (pipeline/response-writer.ts: private, not shared-cacheable), and costs two header
 * fields more. The draft allows it ("Performance Considerations").
 */
const FIELDS_FROM_SHARE_USED = 0.5;

export function createClientLimits(config: Config, redis: SharedRedis | undefined, report: LimitsReport, logger: Logger): ClientLimits {
  return config.RATE_LIMIT_ENABLED ? new WindowLimits(config, redis, report, logger) : UNLIMITED;
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
  private readonly sync: RedisCounterSync | undefined;
  constructor(
    config: Config,
    redis: SharedRedis | undefined,
    private readonly report: LimitsReport,
    private readonly logger: Logger,
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
    report.counting(() => this.counters.size);
    this.sync = redis && new RedisCounterSync(redis, this.counters, config.RATE_LIMIT_SYNC_MS, report, logger);
    if (!redis) logger.info('rate limits: no REDIS_URL, so each replica counts its own requests');
  }

  admit(request: IncomingMessage, admitted: AdmittedRequest): Refusal | undefined {
    const url = request.url!;
    if (url.length <= LONGEST_UNLIMITED_PATH && UNLIMITED_PATHS.has(url)) return undefined;
    const client = (admitted.client = this.identities.identify(request));
    const policy = client.policy;
    if (!policy) return undefined;
    const now = Date.now();
    const usage = this.counters.usageOf(client, now);
    if (this.counters.takeRequest(usage, policy.requests)) {
      this.announce(admitted, policy, usage, now);
      return undefined;
    }
    this.refused(client, policy, usage, REQUESTS_POLICY);
    return requestsRefusal(url, this.refusalState(policy, usage, now));
  }

  chargeGraphQLCost(request: IncomingMessage, admitted: AdmittedRequest, cost: number | undefined): Refusal | undefined {
    if (cost === undefined) return undefined;
    const client = admitted.client ?? (admitted.client = this.identities.identify(request));
    const policy = client.policy;
    if (!policy) return undefined;
    const now = Date.now();
    const usage = this.counters.usageOf(client, now);
    const remaining = Math.max(0, policy.graphqlCost - usage.cost);
    if (this.counters.takeCost(usage, cost, policy.graphqlCost)) {
      this.announce(admitted, policy, usage, now);
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

  /** Notes the RateLimit fields for an admitted answer once its client has used enough of a quota to pace itself. */
  private announce(admitted: AdmittedRequest, policy: ClientPolicy, usage: ClientUsage, now: number): void {
    const paced = usage.requests >= policy.requests * FIELDS_FROM_SHARE_USED || usage.cost >= policy.graphqlCost * FIELDS_FROM_SHARE_USED;
    if (!paced) return;
    admitted.rateLimit = this.rateLimitField(policy, usage, now);
    admitted.rateLimitPolicy = policy.field;
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
    this.report.limited(clientPolicy.labels, policy);
    if (usage.refusalLogged) return;
    usage.refusalLogged = true;
    this.logger.info(
      { client: client.name ?? client.key, clientClass: client.clientClass, policy },
      'client over its rate limit: refused until the window ends',
    );
  }
}

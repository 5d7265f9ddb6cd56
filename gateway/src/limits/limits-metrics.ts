import { Counter, Gauge, type Registry } from 'prom-client';
import type { ClientClass } from './limits-config.js';
import type { PolicyName } from './ratelimit-fields.js';

/**
 * The rate limits' metrics, in the gateway's registry. Labels are bounded: a client's class and
 * its configured name (`anonymous` for clients known by their address), never a key, token or
 * address.
 */
export function createLimitsMetrics(registry: Registry, clientsCounted: () => number) {
  return {
    limited: new Counter<'client_class' | 'client' | 'policy'>({
      name: 'catalog_rate_limited_requests_total',
      help: 'Requests refused with 429 because the client was over its limit, by client class (api-key, bearer, ip), configured client name and policy (requests, graphql-cost)',
      labelNames: ['client_class', 'client', 'policy'] as const,
      registers: [registry],
    }),
    syncs: new Counter<'result'>({
      name: 'catalog_rate_limit_syncs_total',
      help: "Syncs of this replica's rate-limit counts with Redis by result: ok, failed (Redis did not answer in time or refused), skipped (circuit open)",
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    clients: new Gauge({
      name: 'catalog_rate_limit_clients',
      help: 'Clients this replica has counted in the current rate-limit window',
      registers: [registry],
      collect() {
        this.set(clientsCounted());
      },
    }),
  };
}

export type LimitsMetrics = ReturnType<typeof createLimitsMetrics>;

export type LimitedLabels = { client_class: ClientClass; client: string; policy: PolicyName };

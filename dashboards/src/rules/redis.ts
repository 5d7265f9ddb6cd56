// Alerts on the gateway's use of Redis besides the coherence protocol: the circuit breaker in
// front of the shared cache, and the rate limits' counts shared through Redis.
import { GATEWAY } from '../queries.js';
import type { RuleGroup } from './types.js';

export const redisAlertGroup: RuleGroup = {
  name: 'catalog-gateway-redis',
  rules: [
    {
      alert: 'CatalogGatewayRedisCircuitOpen',
      // 1 is open; 2 (half-open) is a probe on its way back, not an outage.
      expr: `max by (job, instance) (catalog_redis_circuit_state{${GATEWAY}}) == 1`,
      for: '2m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Gateway {{ $labels.instance }} skips Redis: its circuit breaker is open',
        description:
          'For 2 minutes this process has answered without the shared cache (every miss goes to Postgres) because Redis kept failing or timing out. Check Redis latency and its network path.',
      },
    },
    {
      alert: 'CatalogGatewayRateLimitSyncsFailing',
      expr: `sum by (job, instance) (rate(catalog_rate_limit_syncs_total{${GATEWAY}, result=~"failed|skipped"}[5m])) > 0 and sum by (job, instance) (rate(catalog_rate_limit_syncs_total{${GATEWAY}, result="ok"}[5m])) == 0`,
      for: '5m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Gateway {{ $labels.instance }} cannot share its rate-limit counts through Redis',
        description:
          'No sync of the rate-limit counts with Redis succeeded for 5 minutes: this process limits each client by its own counts alone, so a client spread over N replicas gets up to N times its quota.',
      },
    },
  ],
};

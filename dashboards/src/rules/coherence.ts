// Alerts on the coherence protocol's Redis (gateway/README.md, "Consistency"). Gateways without
// Redis export no lease and reset nothing, so neither alert can fire for them.
import { GATEWAY } from '../queries.js';
import type { RuleGroup } from './types.js';

export const coherenceAlertGroup: RuleGroup = {
  name: 'catalog-gateway-coherence',
  rules: [
    {
      alert: 'CatalogGatewayRedisFailover',
      // Every process sees the same new epoch: one alert for the job, not one per pod.
      expr: `sum by (job) (increase(catalog_coherence_resets_total{${GATEWAY}, reason=~"failover|lost"}[5m])) > 0`,
      for: '0m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Redis failed over, restarted or lost its data',
        description:
          'Gateway processes dropped their caches {{ $value | humanize }} times in 5 minutes because another Redis server took over (failover) or Redis lost the coherence clock (restarted empty, flushed, or evicted it). Reads fall to Postgres until the caches refill; check the Sentinels and Redis memory.',
      },
    },
    {
      alert: 'CatalogGatewayCoherenceLeaseLost',
      expr: `max by (job, instance) (catalog_coherence_lease_held{${GATEWAY}}) == 0`,
      for: '1m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Gateway {{ $labels.instance }} cannot reach Redis for its coherence lease',
        description:
          'For over a minute this process has served no in-process cache and read no replica (every read goes to the primary), and writes it takes are refused while Redis cannot announce them. Check its network path to Redis.',
      },
    },
  ],
};

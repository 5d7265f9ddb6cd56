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
      // Beside another protocol no lease is granted on purpose (rule 12): CatalogGatewayProtocolsSideBySide says so.
      expr: `max by (job, instance) (catalog_coherence_lease_held{${GATEWAY}}) == 0 unless on (job, instance) max by (job, instance) (catalog_coherence_other_protocols{${GATEWAY}}) > 0`,
      for: '1m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Gateway {{ $labels.instance }} cannot reach Redis for its coherence lease',
        description:
          'For over a minute this process has served no in-process cache and read no replica (every read goes to the primary), and writes it takes are refused while Redis cannot announce them. Check its network path to Redis.',
      },
    },
    {
      alert: 'CatalogGatewayProtocolsSideBySide',
      // A rolling update across protocols lasts minutes; one that has not finished in half an hour has stalled.
      expr: `max by (job) (catalog_coherence_other_protocols{${GATEWAY}}) > 0`,
      for: '30m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Gateways of two coherence protocols have shared Redis for 30 minutes',
        description:
          'Releases of different coherence protocols (a rolling update across versions, a canary, another deployment on the same Redis database) have served side by side for 30 minutes. Meanwhile no gateway serves anything cached and every read goes to the primary. Finish or undo the rollout.',
      },
    },
  ],
};

// Alerts on the purges of the shared caches in front of the gateways (gateway/README.md,
// "Consistency", "Through a shared cache"). Gateways with no purge target export no series.
import { GATEWAY } from '../queries.js';
import type { RuleGroup } from './types.js';

export const edgePurgeAlertGroup: RuleGroup = {
  name: 'catalog-gateway-edge-purges',
  rules: [
    {
      alert: 'CatalogGatewayEdgePurgesFailing',
      // Summed over the job: each change is purged by one process, whichever made it.
      expr:
        `sum by (job, target) (increase(catalog_edge_purge_requests_total{${GATEWAY}, result="failed"}[10m])) > 0 ` +
        `and sum by (job, target) (increase(catalog_edge_purge_requests_total{${GATEWAY}, result="sent"}[10m])) == 0`,
      for: '5m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Purges of {{ $labels.target }} keep failing',
        description:
          'Every purge request to {{ $labels.target }} failed for over 10 minutes ({{ $value | humanize }} failures in the last 10), none went through. The gateways retry them with backoff and lose none, but until they go through the shared cache serves changed responses for up to their s-maxage (plus stale-while-revalidate). The gateway log says what the target answered: check its credentials, its purge ACL and the network path.',
      },
    },
  ],
};

// Alerts on the streaming replicas reads may use (DATABASE_READ_URLS). Gateways without replicas
// export no replica series, so neither alert can fire for them.
import { GATEWAY } from '../queries.js';
import type { RuleGroup } from './types.js';

const REPLICAS = `${GATEWAY}, target!="primary"`;

export const readReplicaAlertGroup: RuleGroup = {
  name: 'catalog-gateway-read-replicas',
  rules: [
    {
      alert: 'CatalogGatewayReplicaLagHigh',
      // The bound is each gateway's own setting, exported beside the lag.
      expr: `max by (job, instance, target) (catalog_db_replay_lag_seconds{${REPLICAS}}) > on (job, instance) group_left () max by (job, instance) (catalog_db_replay_lag_bound_seconds{${GATEWAY}})`,
      for: '1m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Read replica {{ $labels.target }} lags past its bound on gateway {{ $labels.instance }}',
        description:
          '{{ $labels.target }} is {{ $value | humanizeDuration }} behind the primary (over DATABASE_READ_MAX_LAG_MS) and out of the rotation: its reads go to the other replicas or the primary. Check its replay (paused? recovery conflicts?) and its link to the primary.',
      },
    },
    {
      alert: 'CatalogGatewayNoReplicaInRotation',
      expr: `max by (job, instance) (catalog_db_in_rotation{${REPLICAS}}) == 0`,
      for: '2m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Gateway {{ $labels.instance }} has no read replica in its rotation',
        description:
          "Every replica in DATABASE_READ_URLS is down, lagging, not a standby, or not following the primary (its WAL receiver not streaming the primary's timeline, as after a failover, or hidden from the gateway's role without pg_read_all_stats): all reads go to the primary, which now carries the whole read load.",
      },
    },
  ],
};

import { timeseriesPanel } from '../panels.js';
import { GATEWAY_IN_NAMESPACE, sumRate } from '../queries.js';
import type { DashboardRow } from '../row.js';

const WIDTH = 6;

/** The database targets: the primary and the streaming replicas reads may use (DATABASE_READ_URLS). */
export const readReplicasRow: DashboardRow = {
  title: 'Database targets: primary and read replicas',
  panels: [
    timeseriesPanel({
      title: 'Statements per database target',
      description:
        'SQL statements sent to the primary and to each read replica. With replicas configured, reads belong on the replicas; a primary taking them all means no replica is in the rotation.',
      unit: 'reqps',
      width: WIDTH,
      queries: [{ expr: sumRate('catalog_db_statements_total', GATEWAY_IN_NAMESPACE, ['target']), legend: '{{target}}' }],
    }),
    timeseriesPanel({
      title: 'Replica replay lag',
      description:
        'How long ago the primary was where each replica has replayed to (worst gateway view); 0 when it has everything. Above the bound (DATABASE_READ_MAX_LAG_MS) the replica leaves the rotation.',
      unit: 's',
      width: WIDTH,
      queries: [
        { expr: `max by (target) (catalog_db_replay_lag_seconds{${GATEWAY_IN_NAMESPACE}})`, legend: '{{target}}' },
        { expr: `max(catalog_db_replay_lag_bound_seconds{${GATEWAY_IN_NAMESPACE}})`, legend: 'bound' },
      ],
    }),
    timeseriesPanel({
      title: 'Read replicas in rotation',
      description:
        'Gateway processes that send reads to each target: a replica counts while it is in their rotation; the primary counts where no replica is (or none is configured).',
      unit: 'short',
      width: WIDTH,
      queries: [{ expr: `sum by (target) (catalog_db_in_rotation{${GATEWAY_IN_NAMESPACE}})`, legend: '{{target}}' }],
    }),
    timeseriesPanel({
      title: 'Target failures and fallbacks to the primary',
      description:
        'Failures that say a target is down or stalled (statements, pooled connections, position polls), and reads sent to the primary instead of a replica, by reason.',
      unit: 'ops',
      width: WIDTH,
      queries: [
        {
          expr: sumRate('catalog_db_target_failures_total', GATEWAY_IN_NAMESPACE, ['target', 'operation']),
          legend: '{{target}} {{operation}} failures',
        },
        { expr: sumRate('catalog_db_replica_fallbacks_total', GATEWAY_IN_NAMESPACE, ['reason']), legend: 'to primary: {{reason}}' },
      ],
    }),
  ],
};

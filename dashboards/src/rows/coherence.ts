import { timeseriesPanel } from '../panels.js';
import { GATEWAY_IN_NAMESPACE, quantile, sumRate } from '../queries.js';
import type { DashboardRow } from '../row.js';

const WIDTH = 8;

/** The coherence protocol (gateway/README.md, "Consistency"): leases, what made replicas drop their caches, writes waiting for them. */
export const coherenceRow: DashboardRow = {
  title: 'Cache coherence: leases, Redis epochs, writes',
  panels: [
    timeseriesPanel({
      title: 'Gateway processes without their lease',
      description:
        'Processes that cannot renew their coherence lease through Redis (0 while all is well): they serve no in-process cache and read no replica until Redis answers again, and writes wait up to a second for them. Beside a release of another coherence protocol (a rolling update across protocols) every process holds none on purpose: those are counted apart.',
      unit: 'short',
      width: WIDTH,
      queries: [
        { expr: `count(catalog_coherence_lease_held{${GATEWAY_IN_NAMESPACE}} == 0) or vector(0)`, legend: 'without a lease' },
        { expr: `count(catalog_coherence_other_protocols{${GATEWAY_IN_NAMESPACE}} > 0) or vector(0)`, legend: 'beside another protocol' },
      ],
    }),
    timeseriesPanel({
      title: 'Caches dropped, by reason',
      description:
        'Processes dropping everything they kept: failover (another Redis server took over), lost (Redis restarted empty, was flushed or evicted the clock), swap (a catalog reload), gap (a message never heard).',
      unit: 'ops',
      width: WIDTH,
      queries: [{ expr: sumRate('catalog_coherence_resets_total', GATEWAY_IN_NAMESPACE, ['reason']), legend: '{{reason}}' }],
    }),
    timeseriesPanel({
      title: 'Write wait for every replica (p95) and stores Redis refused',
      description:
        'How long writes wait, after their commit, until every gateway process has processed them or lost its lease; and responses Redis refused to store because a tag changed since they were read (or a tag is full).',
      unit: 's',
      width: WIDTH,
      queries: [
        // Without writes the quantile is NaN: shown as 0, not as a gap.
        {
          expr: `(${quantile(0.95, 'catalog_coherence_write_ack_wait_seconds', GATEWAY_IN_NAMESPACE, [])} >= 0) or on () vector(0)`,
          legend: 'write wait p95',
        },
        {
          expr: sumRate('catalog_cache_shared_stores_total', `${GATEWAY_IN_NAMESPACE}, result!="stored"`, ['result']),
          legend: 'stores {{result}} /s',
        },
      ],
    }),
  ],
};
